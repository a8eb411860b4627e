//! The operator's config.

use wasmstream::json::{parse_object, Value};
use wasmstream::{Error, Result};

/// The parsed config.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Config {
    /// Rejects events above this many cents; `None`: no limit.
    pub max_cents: Option<i64>,
}

impl Config {
    /// Parses the config: nothing or white space only, `{}`, or
    /// `{"max_cents":N}` with N >= 0, where 0 means no limit (as Go's
    /// payment-risk does). Anything else is an error, so that a misspelt
    /// name does not silently turn the limit off.
    pub fn parse(b: &[u8]) -> Result<Config> {
        if is_blank(b) {
            return Ok(Config::default());
        }
        let bad = |why: String| {
            Error::new(format!(
                "payment-risk config: want no config or {{\"max_cents\": N}} with N >= 0: {}",
                why
            ))
        };
        let obj = parse_object(b).map_err(|e| bad(e.to_string()))?;
        let mut max_cents = None;
        for (name, value) in obj.fields() {
            match (name, value) {
                (b"max_cents", Value::Int(n)) if n < 0 => {
                    return Err(bad(format!("max_cents is {}", n)))
                }
                (b"max_cents", Value::Int(n)) => max_cents = Some(n).filter(|&n| n > 0),
                (b"max_cents", Value::String(_)) => {
                    return Err(bad("max_cents is a string".into()))
                }
                (other, _) => {
                    return Err(bad(format!("unknown field {}", wasmstream::quote(other))))
                }
            }
        }
        Ok(Config { max_cents })
    }
}

/// Reports whether `b` is empty or Unicode white space only (Go's
/// `bytes.TrimSpace` would leave nothing).
fn is_blank(b: &[u8]) -> bool {
    std::str::from_utf8(b)
        .map(|s| s.trim().is_empty())
        .unwrap_or(false)
}
