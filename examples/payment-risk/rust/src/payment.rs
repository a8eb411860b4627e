//! One payment, as it arrives.

use wasmstream::json::parse_object;
use wasmstream::{Error, Result};

/// A payment; it borrows the record's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Payment<'a> {
    /// The account id.
    pub account: &'a [u8],
    /// The event id, unique per payment.
    pub event: &'a [u8],
    /// The amount.
    pub cents: i64,
}

impl<'a> Payment<'a> {
    /// Parses `{"account":"...","event":"...","cents":N}` (any field
    /// order, more fields allowed).
    pub fn parse(value: &'a [u8]) -> Result<Payment<'a>> {
        let bad = |e: Error| Error::new(format!("bad payment event: {}", e));
        let obj = parse_object(value).map_err(bad)?;
        Ok(Payment {
            account: obj.bytes("account").map_err(bad)?,
            event: obj.bytes("event").map_err(bad)?,
            cents: obj.int("cents").map_err(bad)?,
        })
    }
}
