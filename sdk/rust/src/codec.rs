//! How state values become bytes and back.

use crate::error::{Error, ErrorKind, Result};

/// Turns a state value into bytes and back.
///
/// The built-in encodings are those of the Go SDK and are part of the
/// checkpointed state, so they never change: `i64`, `u64` and `f64` as 8
/// bytes little-endian (`f64` as its IEEE 754 bits), `bool` as one byte 0 or
/// 1, `String` and `Vec<u8>` as their bytes. Implement it for your own types
/// (a fixed binary layout is cheapest); a change of encoding is a change of
/// state format.
pub trait Codec: Sized {
    /// Appends the encoding of `self` to `out`.
    fn encode(&self, out: &mut Vec<u8>);
    /// Decodes a value; `bytes` is only borrowed. Fails with
    /// [`ErrorKind::Decode`] for bytes this codec did not write.
    fn decode(bytes: &[u8]) -> Result<Self>;
}

/// The 8 bytes of a fixed-size value, or a Decode error naming the type.
fn eight_bytes(bytes: &[u8], type_name: &str) -> Result<[u8; 8]> {
    bytes.try_into().map_err(|_| {
        Error::with_kind(
            ErrorKind::Decode,
            format!("{} wants exactly 8 bytes, got {}", type_name, bytes.len()),
        )
    })
}

impl Codec for i64 {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn decode(bytes: &[u8]) -> Result<Self> {
        Ok(i64::from_le_bytes(eight_bytes(bytes, "i64")?))
    }
}

impl Codec for u64 {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn decode(bytes: &[u8]) -> Result<Self> {
        Ok(u64::from_le_bytes(eight_bytes(bytes, "u64")?))
    }
}

impl Codec for f64 {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bits().to_le_bytes());
    }
    fn decode(bytes: &[u8]) -> Result<Self> {
        Ok(f64::from_bits(u64::from_le_bytes(eight_bytes(
            bytes, "f64",
        )?)))
    }
}

impl Codec for bool {
    fn encode(&self, out: &mut Vec<u8>) {
        out.push(u8::from(*self));
    }
    fn decode(bytes: &[u8]) -> Result<Self> {
        match bytes {
            [0] => Ok(false),
            [1] => Ok(true),
            _ => Err(Error::with_kind(
                ErrorKind::Decode,
                "bool wants one byte, 0 or 1",
            )),
        }
    }
}

impl Codec for String {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.as_bytes());
    }
    fn decode(bytes: &[u8]) -> Result<Self> {
        Ok(std::str::from_utf8(bytes)?.to_owned())
    }
}

impl Codec for Vec<u8> {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self);
    }
    fn decode(bytes: &[u8]) -> Result<Self> {
        Ok(bytes.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded<T: Codec>(v: T) -> Vec<u8> {
        let mut b = Vec::new();
        v.encode(&mut b);
        b
    }

    #[test]
    fn encodings_are_those_of_the_go_sdk() {
        assert_eq!(encoded(1200i64), vec![0xb0, 0x04, 0, 0, 0, 0, 0, 0]);
        assert_eq!(encoded(-1i64), vec![0xff; 8]);
        assert_eq!(encoded(2u64), vec![2, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(encoded(1.0f64), 1.0f64.to_bits().to_le_bytes().to_vec());
        assert_eq!(encoded(true), vec![1]);
        assert_eq!(encoded(false), vec![0]);
        assert_eq!(encoded(String::from("hé")), "hé".as_bytes().to_vec());
        assert_eq!(encoded(vec![0u8, 255]), vec![0, 255]);
    }

    #[test]
    fn values_round_trip() {
        for v in [0i64, 1, -1, i64::MIN, i64::MAX] {
            assert_eq!(i64::decode(&encoded(v)), Ok(v));
        }
        assert_eq!(u64::decode(&encoded(u64::MAX)), Ok(u64::MAX));
        assert_eq!(f64::decode(&encoded(-2.5f64)), Ok(-2.5));
        assert_eq!(bool::decode(&encoded(true)), Ok(true));
        assert_eq!(String::decode(b"abc"), Ok("abc".to_string()));
        assert_eq!(Vec::<u8>::decode(b""), Ok(vec![]));
    }

    #[test]
    fn foreign_bytes_are_decode_errors() {
        assert_eq!(
            i64::decode(&[1, 2, 3]).unwrap_err().kind(),
            ErrorKind::Decode
        );
        assert_eq!(u64::decode(&[0; 9]).unwrap_err().kind(), ErrorKind::Decode);
        assert_eq!(f64::decode(&[]).unwrap_err().kind(), ErrorKind::Decode);
        assert_eq!(bool::decode(&[2]).unwrap_err().kind(), ErrorKind::Decode);
        assert_eq!(bool::decode(&[]).unwrap_err().kind(), ErrorKind::Decode);
        assert_eq!(
            String::decode(&[0xff]).unwrap_err().kind(),
            ErrorKind::Decode
        );
    }
}
