//! Parsing flat objects and decimal integers.

use super::scan::plain_prefix;
use super::{decode_error, Object, Value};
use crate::error::{quote, Result};

/// The most digits an integer may have: 18 digits always fit an `i64`.
const MAX_DIGITS: usize = 18;

/// Parses a flat JSON object such as `{"account":"acct-47","cents":1200}`.
pub fn parse_object(input: &[u8]) -> Result<Object<'_>> {
    let mut p = Parser { b: input, i: 0 };
    p.expect(b'{')?;
    let mut fields: Vec<(&[u8], Value<'_>)> = Vec::new();
    p.skip_spaces();
    if p.peek() == Some(b'}') {
        p.i += 1;
        return p.end(fields);
    }
    loop {
        let name = p.string()?;
        if fields.iter().any(|(n, _)| *n == name) {
            return Err(decode_error(format!(
                "JSON: field {} appears twice",
                quote(name)
            )));
        }
        p.expect(b':')?;
        fields.push((name, p.value()?));
        p.skip_spaces();
        match p.next() {
            Some(b',') => continue,
            Some(b'}') => return p.end(fields),
            _ => {
                return Err(decode_error(format!(
                    "JSON: want ',' or '}}' at byte {}",
                    p.i - 1
                )))
            }
        }
    }
}

/// Parses a whole byte string as a decimal integer (no spaces, no `+`, no
/// leading zeros, at most 18 digits); `-0` is 0.
pub fn parse_int(b: &[u8]) -> Option<i64> {
    let (neg, digits) = match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, b),
    };
    let leading_zero = digits.len() > 1 && digits[0] == b'0';
    if digits.is_empty()
        || digits.len() > MAX_DIGITS
        || leading_zero
        || !digits.iter().all(u8::is_ascii_digit)
    {
        return None;
    }
    let n = digits
        .iter()
        .fold(0i64, |n, d| n * 10 + i64::from(d - b'0'));
    Some(if neg { -n } else { n })
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let c = self.peek();
        self.i += 1;
        c
    }

    fn skip_spaces(&mut self) {
        while self.peek() == Some(b' ') {
            self.i += 1;
        }
    }

    /// Skips spaces, then requires `want`.
    fn expect(&mut self, want: u8) -> Result<()> {
        self.skip_spaces();
        if self.peek() != Some(want) {
            return Err(decode_error(format!(
                "JSON: want '{}' at byte {}",
                want as char, self.i
            )));
        }
        self.i += 1;
        Ok(())
    }

    /// Only spaces may follow the object.
    fn end(mut self, fields: Vec<(&'a [u8], Value<'a>)>) -> Result<Object<'a>> {
        self.skip_spaces();
        if self.i != self.b.len() {
            return Err(decode_error(format!(
                "JSON: trailing bytes after the object at byte {}",
                self.i
            )));
        }
        Ok(Object { fields })
    }

    fn string(&mut self) -> Result<&'a [u8]> {
        self.expect(b'"')?;
        let start = self.i;
        self.i += plain_prefix(&self.b[start..]);
        match self.next() {
            Some(b'"') => {}
            Some(b'\\') => return Err(decode_error("JSON: escapes in strings are not supported")),
            Some(_) => return Err(decode_error("JSON: control character in a string")),
            None => return Err(decode_error("JSON: unterminated string")),
        }
        let s = &self.b[start..self.i - 1];
        if std::str::from_utf8(s).is_err() {
            return Err(decode_error(format!(
                "JSON: string at byte {} is not UTF-8",
                start
            )));
        }
        Ok(s)
    }

    fn value(&mut self) -> Result<Value<'a>> {
        self.skip_spaces();
        if self.peek() == Some(b'"') {
            return self.string().map(Value::String);
        }
        // An integer runs to the next token, like in the reference parser:
        // `1.5`, `1e3` or `true` are then refused as a whole.
        let start = self.i;
        while !matches!(self.peek(), None | Some(b' ' | b',' | b'}')) {
            self.i += 1;
        }
        let text = &self.b[start..self.i];
        parse_int(text).map(Value::Int).ok_or_else(|| {
            decode_error(format!(
                "JSON: {} is not a string or a decimal integer of at most 18 digits",
                quote(text)
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn parses_flat_objects() {
        let o = parse_object(
            br#" { "account" : "acct-47","event":"evt-47", "cents":1200 , "neg":-5} "#,
        )
        .unwrap();
        assert_eq!(o.str("account").unwrap(), "acct-47");
        assert_eq!(o.bytes("event").unwrap(), b"evt-47");
        assert_eq!(o.int("cents").unwrap(), 1200);
        assert_eq!(o.int("neg").unwrap(), -5);
        assert_eq!(o.len(), 4);
        assert!(parse_object(b"{}").unwrap().is_empty());
        assert!(parse_object(b"  {  }  ").unwrap().is_empty());
        assert_eq!(parse_object(br#"{"":""}"#).unwrap().bytes("").unwrap(), b"");
        assert_eq!(
            parse_object("{\"é\":\"東京-🙂\"}".as_bytes())
                .unwrap()
                .str("é")
                .unwrap(),
            "東京-🙂"
        );
    }

    #[test]
    fn rejects_everything_outside_the_subset() {
        let bad: &[&[u8]] = &[
            b"",
            b" ",
            b"[]",
            b"{",
            b"{\"a\"}",
            b"{\"a\":}",
            b"{\"a\":1,}",
            b"{,}",
            b"{\"a\":1 \"b\":2}",
            b"{\"a\":1}x",
            b"{\"a\":1}{}",
            b"{\"a\":1,\"a\":2}",
            b"{\"a\":true}",
            b"{\"a\":null}",
            b"{\"a\":1.5}",
            b"{\"a\":1e3}",
            b"{\"a\":+1}",
            b"{\"a\":01}",
            b"{\"a\":-}",
            b"{\"a\":1 2}",
            b"{\"a\":1234567890123456789}",
            b"{\"a\":{}}",
            b"{\"a\":[1]}",
            b"{\"a\":\"x\\\"y\"}",
            b"{\"a\":\"line\nbreak\"}",
            b"{\"a\":\"\xff\"}",
            b"{\"\xc3\":1}",
            b"{\"a\":\"open}",
            b"{a:1}",
            b"{\t\"a\":1}",
            b"{\"a\":1}\n",
            b"\r\n{\"a\":1}",
        ];
        for b in bad {
            let e = parse_object(b).expect_err(&String::from_utf8_lossy(b));
            assert_eq!(e.kind(), ErrorKind::Decode);
        }
    }

    #[test]
    fn integers_follow_the_decimal_rules() {
        let cases: &[(&[u8], Option<i64>)] = &[
            (b"0", Some(0)),
            (b"-0", Some(0)),
            (b"7", Some(7)),
            (b"-1200", Some(-1200)),
            (b"999999999999999999", Some(999_999_999_999_999_999)),
            (b"-999999999999999999", Some(-999_999_999_999_999_999)),
            (b"1000000000000000000", None),
            (b"", None),
            (b"-", None),
            (b"+1", None),
            (b"01", None),
            (b"-01", None),
            (b"00", None),
            (b" 1", None),
            (b"1 ", None),
            (b"1a", None),
            (b"0x10", None),
            ("١".as_bytes(), None),
        ];
        for (b, want) in cases {
            assert_eq!(parse_int(b), *want, "{}", quote(b));
        }
    }

    /// Random bytes and mutations of a valid object: errors, never panics.
    #[test]
    fn survives_random_input() {
        let base = br#"{"account":"acct-47","event":"evt-47","cents":1200}"#.to_vec();
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let alphabet = b"{}[]\":,-0123456789 \\aex\n.\xc3\xff";
        for _ in 0..20_000 {
            let mut b = base.clone();
            for _ in 0..(next() % 3 + 1) {
                let i = (next() as usize) % b.len();
                b[i] = alphabet[(next() as usize) % alphabet.len()];
            }
            let cut = (next() as usize) % (b.len() + 1);
            let _ = parse_object(&b[..cut]);
        }
    }
}
