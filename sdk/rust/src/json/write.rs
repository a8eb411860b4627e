//! Writing flat objects as Go's `encoding/json` writes them.

use std::fmt::Write as _;

use super::scan::safe_ascii_prefix;

/// Writes a flat JSON object, fields in the order they are added, no spaces:
///
/// ```
/// let mut w = wasmstream::json::ObjectWriter::new();
/// w.string("account", "acct-47").int("total", 2100);
/// assert_eq!(w.finish(), br#"{"account":"acct-47","total":2100}"#.to_vec());
/// ```
///
/// Strings are written as Go's `encoding/json` writes them (`json.Marshal`),
/// so outputs match the Go SDK's byte for byte: `"` and `\` escaped; `\b`,
/// `\f`, `\n`, `\r`, `\t` as such and other control characters as `\u00XX`;
/// `<`, `>`, `&`, U+2028 and U+2029 as `\u003c`, `\u003e`, `\u0026`,
/// `\u2028`, `\u2029`; each byte that is not UTF-8 as `\ufffd`.
#[derive(Debug, Clone, Default)]
pub struct ObjectWriter {
    buf: Vec<u8>,
}

impl ObjectWriter {
    /// An empty object.
    pub fn new() -> ObjectWriter {
        ObjectWriter {
            buf: Vec::with_capacity(128),
        }
    }

    fn field(&mut self, name: &[u8]) {
        self.buf.push(if self.buf.is_empty() { b'{' } else { b',' });
        write_string(&mut self.buf, name);
        self.buf.push(b':');
    }

    /// Adds a string field.
    pub fn string(&mut self, name: &str, value: impl AsRef<[u8]>) -> &mut ObjectWriter {
        self.field(name.as_bytes());
        write_string(&mut self.buf, value.as_ref());
        self
    }

    /// Adds an integer field.
    pub fn int(&mut self, name: &str, value: i64) -> &mut ObjectWriter {
        self.field(name.as_bytes());
        let mut s = String::new();
        let _ = write!(s, "{}", value);
        self.buf.extend_from_slice(s.as_bytes());
        self
    }

    /// The object's bytes.
    pub fn finish(mut self) -> Vec<u8> {
        if self.buf.is_empty() {
            self.buf.push(b'{');
        }
        self.buf.push(b'}');
        self.buf
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Writes `s` as a JSON string (see [`ObjectWriter`]).
fn write_string(out: &mut Vec<u8>, mut s: &[u8]) {
    out.push(b'"');
    loop {
        let n = safe_ascii_prefix(s);
        out.extend_from_slice(&s[..n]);
        s = &s[n..];
        let c = match s.first() {
            Some(&c) => c,
            None => break,
        };
        let used = if c < 0x80 {
            write_ascii(out, c)
        } else {
            write_non_ascii(out, s)
        };
        s = &s[used..];
    }
    out.push(b'"');
}

/// Writes an ASCII byte that needs escaping; returns 1.
fn write_ascii(out: &mut Vec<u8>, c: u8) -> usize {
    match c {
        b'"' | b'\\' => out.extend_from_slice(&[b'\\', c]),
        0x08 => out.extend_from_slice(b"\\b"),
        0x0c => out.extend_from_slice(b"\\f"),
        b'\n' => out.extend_from_slice(b"\\n"),
        b'\r' => out.extend_from_slice(b"\\r"),
        b'\t' => out.extend_from_slice(b"\\t"),
        c => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[(c >> 4) as usize],
            HEX[(c & 15) as usize],
        ]),
    }
    1
}

/// Writes the character at the start of `s` (which starts with a byte of
/// 0x80 or above); returns how many bytes it used: a byte that does not
/// start a UTF-8 sequence is `\ufffd`, as in Go.
fn write_non_ascii(out: &mut Vec<u8>, s: &[u8]) -> usize {
    let width = match s[0] {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => 0,
    };
    let valid = width > 0 && s.len() >= width && std::str::from_utf8(&s[..width]).is_ok();
    if !valid {
        out.extend_from_slice(b"\\ufffd");
        return 1;
    }
    match &s[..width] {
        [0xe2, 0x80, 0xa8] => out.extend_from_slice(b"\\u2028"),
        [0xe2, 0x80, 0xa9] => out.extend_from_slice(b"\\u2029"),
        ch => out.extend_from_slice(ch),
    }
    width
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(s: &[u8]) -> String {
        let mut out = Vec::new();
        write_string(&mut out, s);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn writes_compact_objects() {
        let mut w = ObjectWriter::new();
        w.string("account", "acct-47")
            .string("event", b"evt-47")
            .int("cents", 1200)
            .int("total", -1);
        assert_eq!(
            w.finish(),
            br#"{"account":"acct-47","event":"evt-47","cents":1200,"total":-1}"#.to_vec()
        );
        assert_eq!(ObjectWriter::new().finish(), b"{}".to_vec());
        let mut w = ObjectWriter::new();
        w.int("min", i64::MIN);
        assert_eq!(w.finish(), br#"{"min":-9223372036854775808}"#.to_vec());
    }

    /// Expectations from Go: json.Marshal(string(input)) for each input.
    #[test]
    fn strings_are_written_as_go_encoding_json_writes_them() {
        let cases: &[(&[u8], &str)] = &[
            (b"", r#""""#),
            (b"plain text 123", r#""plain text 123""#),
            (b"q\"b\\", r#""q\"b\\""#),
            (b"\x08\x0c\n\r\t", r#""\b\f\n\r\t""#),
            (b"\x00\x01\x1f\x7f", "\"\\u0000\\u0001\\u001f\x7f\""),
            (b"a<b>c&d", r#""a\u003cb\u003ec\u0026d""#),
            (
                "evt\u{2028}<1>\u{2029}".as_bytes(),
                r#""evt\u2028\u003c1\u003e\u2029""#,
            ),
            (
                "zürich 東京 🙂 \u{fffd}".as_bytes(),
                "\"zürich 東京 🙂 \u{fffd}\"",
            ),
            (b"\xff", r#""\ufffd""#),
            (b"a\xc3", r#""a\ufffd""#),
            (b"\xe2\x80", r#""\ufffd\ufffd""#),
            (b"\xed\xa0\x80", r#""\ufffd\ufffd\ufffd""#), // a surrogate is not UTF-8
            (b"\xc0\xaf", r#""\ufffd\ufffd""#),           // nor an overlong form
            (b"\xf4\x90\x80\x80", r#""\ufffd\ufffd\ufffd\ufffd""#), // nor above U+10FFFF
        ];
        for (input, want) in cases {
            assert_eq!(written(input), *want, "input {:?}", input);
        }
    }
}
