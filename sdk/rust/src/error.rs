//! The SDK's error type: one [`ErrorKind`] per ABI code a host function can
//! return, plus the kinds the SDK and operators raise themselves.

use std::fmt;

use crate::abi::code;

/// `Result<T, wasmstream::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong, as a value to match on.
///
/// The first group mirrors the ABI's host codes (`abi/ABI.md` §7.1). The
/// three fatal ones (`BadPointer`, `NoRecord`, `Reentrant`) never reach an
/// operator from the real host, which stops the call instead; they exist so
/// that every code has a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// `NOT_FOUND`: no state value. State getters report it as `Ok(None)`.
    NotFound,
    /// `BAD_POINTER`: the host saw a range outside guest memory.
    BadPointer,
    /// `BAD_ARGUMENT`: a name is empty or too long, or headers are malformed.
    BadArgument,
    /// `NO_RECORD`: a state or emit call outside `Operator::process`.
    NoRecord,
    /// `TOO_LARGE`: a state value or an emitted key, value or header list is
    /// over the operator's `limits.max_value_bytes`.
    TooLarge,
    /// `UNKNOWN_OUTPUT`: `emit` named an output the pipeline does not wire.
    UnknownOutput,
    /// `QUOTA_EXCEEDED`: the record emitted more than `limits.max_emits_per_record`.
    QuotaExceeded,
    /// `REENTRANT`: a host function was called from inside `ws_alloc`.
    Reentrant,
    /// A negative code this SDK does not know: the host is newer than the SDK.
    UnknownCode(i32),
    /// Bytes do not decode: a state value written with another codec, or an
    /// input the operator cannot parse.
    Decode,
    /// The operator rejected its input or its config (`Error::new`).
    Invalid,
    /// The SDK or the host protocol failed (a malformed batch, say).
    Internal,
}

impl ErrorKind {
    /// Returns the kind of a negative host code, `None` for 0 and positive
    /// results, which are successes.
    pub fn from_code(c: i32) -> Option<ErrorKind> {
        Some(match c {
            code::NOT_FOUND => ErrorKind::NotFound,
            code::BAD_POINTER => ErrorKind::BadPointer,
            code::BAD_ARGUMENT => ErrorKind::BadArgument,
            code::NO_RECORD => ErrorKind::NoRecord,
            code::TOO_LARGE => ErrorKind::TooLarge,
            code::UNKNOWN_OUTPUT => ErrorKind::UnknownOutput,
            code::QUOTA_EXCEEDED => ErrorKind::QuotaExceeded,
            code::REENTRANT => ErrorKind::Reentrant,
            c if c < 0 => ErrorKind::UnknownCode(c),
            _ => return None,
        })
    }

    /// Returns the ABI code of a host kind, `None` for the SDK's own kinds.
    pub fn code(self) -> Option<i32> {
        Some(match self {
            ErrorKind::NotFound => code::NOT_FOUND,
            ErrorKind::BadPointer => code::BAD_POINTER,
            ErrorKind::BadArgument => code::BAD_ARGUMENT,
            ErrorKind::NoRecord => code::NO_RECORD,
            ErrorKind::TooLarge => code::TOO_LARGE,
            ErrorKind::UnknownOutput => code::UNKNOWN_OUTPUT,
            ErrorKind::QuotaExceeded => code::QUOTA_EXCEEDED,
            ErrorKind::Reentrant => code::REENTRANT,
            ErrorKind::UnknownCode(c) => c,
            _ => return None,
        })
    }

    /// A sentence for a host code, with what the user can do about it.
    fn describe(self) -> String {
        match self {
            ErrorKind::NotFound => "not found (NOT_FOUND)".into(),
            ErrorKind::BadPointer => "pointer outside guest memory (BAD_POINTER)".into(),
            ErrorKind::BadArgument => {
                "bad argument: a name is empty or too long, or headers are malformed (BAD_ARGUMENT)".into()
            }
            ErrorKind::NoRecord => "called outside Operator::process (NO_RECORD)".into(),
            ErrorKind::TooLarge => {
                "over the operator's size limit; keep it smaller or raise limits.max_value_bytes (TOO_LARGE)".into()
            }
            ErrorKind::UnknownOutput => {
                "output not wired in the pipeline file; add it to the operator's outputs (UNKNOWN_OUTPUT)".into()
            }
            ErrorKind::QuotaExceeded => {
                "too many emits for one record; raise limits.max_emits_per_record (QUOTA_EXCEEDED)".into()
            }
            ErrorKind::Reentrant => "host call from inside ws_alloc (REENTRANT)".into(),
            ErrorKind::UnknownCode(c) => format!("unknown error code {} from the host; update the SDK", c),
            ErrorKind::Decode => "does not decode".into(),
            ErrorKind::Invalid => "invalid".into(),
            ErrorKind::Internal => "internal error".into(),
        }
    }
}

/// The error of every fallible SDK call, and what `Operator::init` and
/// `Operator::process` return to reject a config or a record.
///
/// It carries a [`ErrorKind`] and a message that names the operation and
/// the object, e.g. `state put "total": over the operator's size limit; ...
/// (TOO_LARGE)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    /// An operator's own error ([`ErrorKind::Invalid`]): a record or a config
    /// it rejects. `Err("cents is negative".into())` builds one as well.
    pub fn new(message: impl Into<String>) -> Error {
        Error::with_kind(ErrorKind::Invalid, message)
    }

    /// An error of the given kind.
    pub fn with_kind(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
        }
    }

    /// The error of a host call that returned the negative code `c`;
    /// callers add the operation and the object with [`Error::context`].
    pub(crate) fn from_code(c: i32) -> Error {
        let kind = ErrorKind::from_code(c).unwrap_or(ErrorKind::Internal);
        Error {
            kind,
            message: kind.describe(),
        }
    }

    /// The kind, to match on.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The full message, as `Display` prints it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Prefixes the message with `context: `, keeping the kind.
    pub fn context(mut self, context: impl fmt::Display) -> Error {
        self.message = format!("{}: {}", context, self.message);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            return f.write_str(&self.kind.describe());
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<&str> for Error {
    fn from(message: &str) -> Error {
        Error::new(message)
    }
}

impl From<String> for Error {
    fn from(message: String) -> Error {
        Error::new(message)
    }
}

impl From<std::str::Utf8Error> for Error {
    fn from(e: std::str::Utf8Error) -> Error {
        Error::with_kind(ErrorKind::Decode, format!("not UTF-8: {}", e))
    }
}

impl From<std::string::FromUtf8Error> for Error {
    fn from(e: std::string::FromUtf8Error) -> Error {
        Error::with_kind(ErrorKind::Decode, format!("not UTF-8: {}", e))
    }
}

/// Quotes bytes for an error or log message: `"acct-47"`, with `"`, `\\`,
/// control characters and bytes that are not UTF-8 escaped (`\x00`). Use it
/// instead of `{:?}` on strings, which pulls Unicode tables (several KB)
/// into the module.
pub fn quote(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len() + 2);
    out.push('"');
    let mut rest = b;
    while !rest.is_empty() {
        let (valid, bad) = match std::str::from_utf8(rest) {
            Ok(s) => (s, &[][..]),
            Err(e) => {
                let (v, b) = rest.split_at(e.valid_up_to());
                (std::str::from_utf8(v).unwrap_or_default(), b)
            }
        };
        for c in valid.chars() {
            match c {
                '"' | '\\' => {
                    out.push('\\');
                    out.push(c);
                }
                c if (c as u32) < 0x20 || c == '\u{7f}' => push_hex(&mut out, c as u8),
                c => out.push(c),
            }
        }
        if let Some((&byte, tail)) = bad.split_first() {
            push_hex(&mut out, byte);
            rest = tail;
        } else {
            rest = &[];
        }
    }
    out.push('"');
    out
}

fn push_hex(out: &mut String, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push_str("\\x");
    out.push(HEX[(b >> 4) as usize] as char);
    out.push(HEX[(b & 15) as usize] as char);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_escapes_what_a_message_cannot_show() {
        assert_eq!(quote(b"total"), "\"total\"");
        assert_eq!(quote("h\u{e9}".as_bytes()), "\"h\u{e9}\"");
        assert_eq!(quote(b"a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(quote(b"seen\0e\n"), "\"seen\\x00e\\x0a\"");
        assert_eq!(quote(b"\xffok\xfe"), "\"\\xffok\\xfe\"");
        assert_eq!(quote(b""), "\"\"");
    }

    #[test]
    fn host_codes_round_trip_through_kinds() {
        for c in [-1, -2, -3, -4, -5, -6, -7, -8, -9, -1000] {
            let kind = ErrorKind::from_code(c).expect("negative codes have a kind");
            assert_eq!(kind.code(), Some(c), "{:?}", kind);
        }
        assert_eq!(ErrorKind::from_code(0), None);
        assert_eq!(ErrorKind::from_code(7), None);
        assert_eq!(ErrorKind::from_code(-9), Some(ErrorKind::UnknownCode(-9)));
        assert_eq!(ErrorKind::Invalid.code(), None);
    }

    #[test]
    fn host_errors_name_the_operation_and_the_object() {
        let e = Error::from_code(code::TOO_LARGE).context("state put \"total\"");
        assert_eq!(e.kind(), ErrorKind::TooLarge);
        assert!(e.to_string().starts_with("state put \"total\": "), "{}", e);
        assert!(e.to_string().ends_with("(TOO_LARGE)"), "{}", e);
    }

    #[test]
    fn context_keeps_the_kind() {
        let e = Error::with_kind(ErrorKind::Decode, "want 8 bytes").context("state get \"n\"");
        assert_eq!(e.kind(), ErrorKind::Decode);
        assert_eq!(e.to_string(), "state get \"n\": want 8 bytes");
    }

    #[test]
    fn strings_become_invalid_errors() {
        let e: Error = "cents is negative".into();
        assert_eq!(e.kind(), ErrorKind::Invalid);
        assert_eq!(e.to_string(), "cents is negative");
        let e = Error::from(String::from_utf8(vec![0xff]).unwrap_err());
        assert_eq!(e.kind(), ErrorKind::Decode);
    }

    #[test]
    fn an_empty_message_falls_back_to_the_kind() {
        assert_eq!(
            Error::with_kind(ErrorKind::Internal, "").to_string(),
            "internal error"
        );
    }
}
