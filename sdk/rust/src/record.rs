//! The record handed to `Operator::process`.

use crate::headers::Headers;

/// One input record. It borrows the host's batch buffer, so it lives only
/// for the `process` call: copy what you keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'a> {
    pub(crate) event_time: i64,
    pub(crate) input: u32,
    pub(crate) key: &'a [u8],
    pub(crate) value: &'a [u8],
    pub(crate) headers: &'a [u8],
}

impl<'a> Record<'a> {
    /// The key the host extracted; state calls during `process` address it.
    pub fn key(&self) -> &'a [u8] {
        self.key
    }

    /// The payload.
    pub fn value(&self) -> &'a [u8] {
        self.value
    }

    /// When the event happened, Unix nanoseconds (the JetStream timestamp of
    /// the source message). Replays see the same value.
    pub fn event_time(&self) -> i64 {
        self.event_time
    }

    /// The index of the input the record arrived on, in the order of the
    /// operator's `inputs` in the pipeline file.
    pub fn input(&self) -> u32 {
        self.input
    }

    /// The value of the first header called `name` (names are
    /// case-sensitive bytes).
    pub fn header(&self, name: impl AsRef<[u8]>) -> Option<&'a [u8]> {
        let name = name.as_ref();
        self.headers().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// Every header as `(name, value)`, repeated names included, in the
    /// order of the record's header list: the engine sorts a message's
    /// headers by name (byte order) and keeps the order of one name's values
    /// (abi/ABI.md §5.2), so a replay yields the same sequence.
    pub fn headers(&self) -> Headers<'a> {
        Headers::new(self.headers)
    }

    /// The headers in their ABI encoding (§5.2).
    pub fn raw_headers(&self) -> &'a [u8] {
        self.headers
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headers::append_header;

    #[test]
    fn finds_the_first_header_of_a_name() {
        let mut h = Vec::new();
        append_header(&mut h, b"a", b"1");
        append_header(&mut h, b"b", b"2");
        append_header(&mut h, b"a", b"3");
        let r = Record {
            event_time: 5,
            input: 1,
            key: b"k",
            value: b"v",
            headers: &h,
        };
        assert_eq!(r.header("a"), Some(&b"1"[..]));
        assert_eq!(r.header(b"b"), Some(&b"2"[..]));
        assert_eq!(r.header("A"), None, "names are case-sensitive");
        assert_eq!(r.headers().count(), 3);
        assert_eq!(
            (r.key(), r.value(), r.event_time(), r.input()),
            (&b"k"[..], &b"v"[..], 5, 1)
        );
    }
}
