//! The batch encoding of ABI v1 (§5.1): `count u32` then `count` records of
//! `event_time i64 | input u32 | key | value | headers`, each of the last
//! three with a u32 length prefix. The host writes it; the SDK decodes it
//! without copying.

use crate::headers::{cut_bytes, read_u32, valid_headers};
use crate::record::Record;

/// Event time, input and the three length prefixes: the least a record takes.
const RECORD_FIXED_LEN: usize = 8 + 4 + 4 + 4 + 4;

/// The batch bytes do not follow the encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Malformed;

/// Decodes a batch one record at a time.
pub(crate) struct BatchReader<'a> {
    buf: &'a [u8],
    remaining: u32,
}

impl<'a> BatchReader<'a> {
    /// Checks the record count against the size, so that an absurd count is
    /// refused before any record is handed out.
    pub(crate) fn new(buf: &'a [u8]) -> Result<BatchReader<'a>, Malformed> {
        let count = read_u32(buf).ok_or(Malformed)?;
        let rest = &buf[4..];
        if (count as u64) * (RECORD_FIXED_LEN as u64) > rest.len() as u64 {
            return Err(Malformed);
        }
        Ok(BatchReader {
            buf: rest,
            remaining: count,
        })
    }

    /// The next record, `None` at the end of the batch, or `Malformed` for a
    /// broken record, malformed headers or bytes after the last record.
    pub(crate) fn next_record(&mut self) -> Result<Option<Record<'a>>, Malformed> {
        if self.remaining == 0 {
            return if self.buf.is_empty() {
                Ok(None)
            } else {
                Err(Malformed)
            };
        }
        let b = self.buf;
        let time: [u8; 8] = b
            .get(..8)
            .ok_or(Malformed)?
            .try_into()
            .map_err(|_| Malformed)?;
        let input = read_u32(&b[8..]).ok_or(Malformed)?;
        let (key, b) = cut_bytes(&b[12..]).ok_or(Malformed)?;
        let (value, b) = cut_bytes(b).ok_or(Malformed)?;
        let (headers, b) = cut_bytes(b).ok_or(Malformed)?;
        if !valid_headers(headers) {
            return Err(Malformed);
        }
        self.buf = b;
        self.remaining -= 1;
        Ok(Some(Record {
            event_time: i64::from_le_bytes(time),
            input,
            key,
            value,
            headers,
        }))
    }
}

/// Encodes records as a batch, as the host does (for the native harness).
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
pub(crate) fn encode_batch(records: &[Record<'_>]) -> Vec<u8> {
    use crate::headers::append_bytes;
    let count =
        u32::try_from(records.len()).expect("wasmstream: more than 2^32 records in a batch");
    let mut b = count.to_le_bytes().to_vec();
    for r in records {
        b.extend_from_slice(&r.event_time.to_le_bytes());
        b.extend_from_slice(&r.input.to_le_bytes());
        append_bytes(&mut b, r.key);
        append_bytes(&mut b, r.value);
        append_bytes(&mut b, r.headers);
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headers::append_header;

    fn sample() -> (Vec<u8>, Vec<u8>) {
        let mut h = Vec::new();
        append_header(&mut h, b"n", b"v");
        let recs = [
            Record {
                event_time: -5,
                input: 0,
                key: b"k1",
                value: b"v1",
                headers: &h,
            },
            Record {
                event_time: i64::MAX,
                input: 7,
                key: b"",
                value: b"",
                headers: b"",
            },
        ];
        (encode_batch(&recs), h)
    }

    fn decode_all(b: &[u8]) -> Result<Vec<Record<'_>>, Malformed> {
        let mut br = BatchReader::new(b)?;
        let mut out = Vec::new();
        while let Some(r) = br.next_record()? {
            out.push(r);
        }
        Ok(out)
    }

    #[test]
    fn round_trips() {
        let (b, h) = sample();
        let recs = decode_all(&b).expect("a well-formed batch");
        assert_eq!(recs.len(), 2);
        assert_eq!(
            (
                recs[0].event_time,
                recs[0].input,
                recs[0].key,
                recs[0].value
            ),
            (-5, 0, &b"k1"[..], &b"v1"[..])
        );
        assert_eq!(recs[0].headers, &h[..]);
        assert_eq!(
            (recs[1].event_time, recs[1].input, recs[1].key),
            (i64::MAX, 7, &b""[..])
        );
    }

    #[test]
    fn the_layout_is_the_one_of_the_spec() {
        let r = Record {
            event_time: 1,
            input: 2,
            key: b"K",
            value: b"VV",
            headers: b"",
        };
        let b = encode_batch(&[r]);
        let want: Vec<u8> = [
            &[1, 0, 0, 0][..],         // count
            &[1, 0, 0, 0, 0, 0, 0, 0], // event time
            &[2, 0, 0, 0],             // input
            &[1, 0, 0, 0],
            b"K", // key
            &[2, 0, 0, 0],
            b"VV",         // value
            &[0, 0, 0, 0], // headers
        ]
        .concat();
        assert_eq!(b, want);
        assert_eq!(
            decode_all(&[0, 0, 0, 0]).unwrap().len(),
            0,
            "the empty batch"
        );
    }

    #[test]
    fn every_truncation_and_trailing_byte_is_malformed() {
        let (b, _) = sample();
        for cut in 0..b.len() {
            assert!(decode_all(&b[..cut]).is_err(), "prefix of {} bytes", cut);
        }
        let mut trailing = b.clone();
        trailing.push(0);
        assert!(decode_all(&trailing).is_err());
    }

    #[test]
    fn malformed_headers_and_absurd_counts_are_refused() {
        let r = Record {
            event_time: 0,
            input: 0,
            key: b"",
            value: b"",
            headers: &[1, 0, 0, 0, b'x'],
        };
        assert!(decode_all(&encode_batch(&[r])).is_err());
        assert!(BatchReader::new(&[0xff, 0xff, 0xff, 0xff]).is_err());
    }

    /// Decodes pseudo-random mutations of a valid batch: the decoder must
    /// return records or Malformed, never panic or read out of bounds.
    #[test]
    fn survives_random_mutations() {
        let (base, _) = sample();
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..20_000 {
            let mut b = base.clone();
            for _ in 0..(next() % 4 + 1) {
                let i = (next() as usize) % b.len();
                b[i] = next() as u8;
            }
            let cut = (next() as usize) % (b.len() + 1);
            let _ = decode_all(&b[..cut]);
        }
    }
}
