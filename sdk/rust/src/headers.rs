//! The header-list encoding of ABI v1 (§5.2): the concatenation of
//! `name_len u32 | name | value_len u32 | value` pairs, little-endian.

/// Appends one name/value pair to an encoded header list.
///
/// # Panics
/// When a name or value is 4 GiB or longer, which cannot be encoded.
pub fn append_header(dst: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    append_bytes(dst, name);
    append_bytes(dst, value);
}

/// Appends `b` with its u32 length prefix.
pub(crate) fn append_bytes(dst: &mut Vec<u8>, b: &[u8]) {
    let n = u32::try_from(b.len()).expect("wasmstream: a field of 4 GiB or more cannot be encoded");
    dst.extend_from_slice(&n.to_le_bytes());
    dst.extend_from_slice(b);
}

/// Splits a u32-length-prefixed field off the front of `b`: the field and
/// the rest, or `None` when `b` is too short.
pub(crate) fn cut_bytes(b: &[u8]) -> Option<(&[u8], &[u8])> {
    let n = read_u32(b)? as usize;
    let rest = &b[4..];
    if n > rest.len() {
        return None;
    }
    Some(rest.split_at(n))
}

/// Reads a little-endian u32 from the front of `b`.
pub(crate) fn read_u32(b: &[u8]) -> Option<u32> {
    let bytes: [u8; 4] = b.get(..4)?.try_into().ok()?;
    Some(u32::from_le_bytes(bytes))
}

/// Iterates the pairs of an encoded header list without copying, in their
/// order: `(name, value)`. It stops at the end or at a malformed pair
/// (input records are validated when their batch is decoded, so a record's
/// headers are never malformed).
#[derive(Debug, Clone)]
pub struct Headers<'a> {
    buf: &'a [u8],
}

impl<'a> Headers<'a> {
    /// Iterates the encoded list `buf`.
    pub fn new(buf: &'a [u8]) -> Headers<'a> {
        Headers { buf }
    }
}

impl<'a> Iterator for Headers<'a> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        let (name, rest) = cut_bytes(self.buf)?;
        let (value, rest) = cut_bytes(rest)?;
        self.buf = rest;
        Some((name, value))
    }
}

/// Reports whether `buf` is a well-formed header list: complete pairs and
/// nothing trailing.
pub fn valid_headers(mut buf: &[u8]) -> bool {
    while !buf.is_empty() {
        match cut_bytes(buf).and_then(|(_, rest)| cut_bytes(rest)) {
            Some((_, rest)) => buf = rest,
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_the_example_of_the_spec() {
        let mut b = Vec::new();
        append_header(&mut b, b"Content-Type", b"json");
        let mut want = vec![0x0c, 0, 0, 0];
        want.extend_from_slice(b"Content-Type");
        want.extend_from_slice(&[4, 0, 0, 0]);
        want.extend_from_slice(b"json");
        assert_eq!(b, want);
    }

    #[test]
    fn round_trips_in_order_with_repeats_and_empties() {
        let pairs: [(&[u8], &[u8]); 4] = [(b"a", b"1"), (b"a", b"2"), (b"", b""), (b"b\0", b"x y")];
        let mut b = Vec::new();
        for (n, v) in pairs {
            append_header(&mut b, n, v);
        }
        assert!(valid_headers(&b));
        let got: Vec<_> = Headers::new(&b).collect();
        assert_eq!(got, pairs.to_vec());
    }

    #[test]
    fn rejects_incomplete_or_trailing_bytes() {
        let mut good = Vec::new();
        append_header(&mut good, b"name", b"value");
        for cut in 1..good.len() {
            assert!(!valid_headers(&good[..cut]), "prefix of {} bytes", cut);
        }
        let mut trailing = good.clone();
        trailing.push(0);
        assert!(!valid_headers(&trailing));
        assert!(valid_headers(&[]));
        // A length near u32::MAX must not overflow or allocate.
        assert!(!valid_headers(&[0xff, 0xff, 0xff, 0xff, b'x']));
    }
}
