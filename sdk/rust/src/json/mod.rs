//! Flat JSON objects without a JSON crate: guests build offline, and many
//! stream payloads are flat. It reads and writes objects whose values are
//! strings or integers, exactly as every wasmstream SDK does for the
//! reference operators (conformance/OPERATORS.md), so that a payload is
//! accepted or refused, and an output written, identically in all of them:
//!
//! - the input is one object `{"name":value,...}`; spaces (only spaces) may
//!   surround every token; a field name appears at most once;
//! - strings are UTF-8 with no escape (`\`), no `"` and no control
//!   character; they are returned as the bytes between the quotes;
//! - integers are decimal: optional `-`, no `+`, no leading zero except `0`
//!   itself, at most 18 digits, so they always fit an `i64`.
//!
//! Anything else (nesting, arrays, floats, `true`, `null`, escapes, tabs or
//! newlines between tokens) is an [`ErrorKind::Decode`](crate::ErrorKind)
//! error. [`ObjectWriter`] writes strings as Go's `encoding/json` does, so
//! outputs match the Go SDK's byte for byte.

mod parse;
mod scan;
mod write;

pub use parse::{parse_int, parse_object};
pub use write::ObjectWriter;

use crate::error::{quote, Error, ErrorKind, Result};

/// A value of a flat object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value<'a> {
    /// The bytes between the quotes, valid UTF-8.
    String(&'a [u8]),
    /// A decimal integer.
    Int(i64),
}

/// A parsed flat object; it borrows the input.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Object<'a> {
    fields: Vec<(&'a [u8], Value<'a>)>,
}

fn decode_error(msg: impl Into<String>) -> Error {
    Error::with_kind(ErrorKind::Decode, msg)
}

impl<'a> Object<'a> {
    /// The value of field `name`.
    pub fn get(&self, name: &str) -> Option<Value<'a>> {
        self.fields
            .iter()
            .find(|(n, _)| *n == name.as_bytes())
            .map(|(_, v)| *v)
    }

    /// The string field `name` as bytes; an error when missing or not a string.
    pub fn bytes(&self, name: &str) -> Result<&'a [u8]> {
        match self.get(name) {
            Some(Value::String(s)) => Ok(s),
            Some(Value::Int(_)) => Err(decode_error(format!(
                "JSON: field {} is not a string",
                quote(name.as_bytes())
            ))),
            None => Err(decode_error(format!(
                "JSON: field {} is missing",
                quote(name.as_bytes())
            ))),
        }
    }

    /// The string field `name`; an error when missing or not a string.
    pub fn str(&self, name: &str) -> Result<&'a str> {
        let b = self.bytes(name)?;
        // The parser only accepts UTF-8 strings.
        std::str::from_utf8(b).map_err(|_| {
            decode_error(format!(
                "JSON: field {} is not UTF-8",
                quote(name.as_bytes())
            ))
        })
    }

    /// The integer field `name`; an error when missing or not an integer.
    pub fn int(&self, name: &str) -> Result<i64> {
        match self.get(name) {
            Some(Value::Int(n)) => Ok(n),
            Some(Value::String(_)) => Err(decode_error(format!(
                "JSON: field {} is not an integer",
                quote(name.as_bytes())
            ))),
            None => Err(decode_error(format!(
                "JSON: field {} is missing",
                quote(name.as_bytes())
            ))),
        }
    }

    /// The fields in input order.
    pub fn fields(&self) -> impl Iterator<Item = (&'a [u8], Value<'a>)> + '_ {
        self.fields.iter().copied()
    }

    /// The number of fields.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// True for `{}`.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_errors_say_missing_or_wrong_type() {
        let o = parse_object(br#"{"s":"1","n":1}"#).unwrap();
        for e in [
            o.int("s").unwrap_err(),
            o.bytes("n").unwrap_err(),
            o.int("x").unwrap_err(),
            o.str("x").unwrap_err(),
        ] {
            assert_eq!(e.kind(), ErrorKind::Decode);
        }
        assert!(o.int("x").unwrap_err().to_string().contains("missing"));
        assert!(o
            .int("s")
            .unwrap_err()
            .to_string()
            .contains("not an integer"));
        assert!(o
            .bytes("n")
            .unwrap_err()
            .to_string()
            .contains("not a string"));
        assert_eq!(o.str("s").unwrap(), "1");
        assert_eq!(o.get("n"), Some(Value::Int(1)));
        assert_eq!(
            o.fields().map(|(n, _)| n).collect::<Vec<_>>(),
            [&b"s"[..], b"n"]
        );
    }

    #[test]
    fn what_it_parses_it_writes_back_identically() {
        let input = r#"{"account":"zürich-ü","event":"évt-1","cents":1200}"#.as_bytes();
        let o = parse_object(input).unwrap();
        let mut w = ObjectWriter::new();
        for (name, value) in o.fields() {
            let name = std::str::from_utf8(name).unwrap();
            match value {
                Value::String(s) => w.string(name, s),
                Value::Int(n) => w.int(name, n),
            };
        }
        assert_eq!(w.finish(), input.to_vec());
    }
}
