//! One scored payment, as the accounts stage emits it.

use wasmstream::json::parse_object;
use wasmstream::{quote, Error, Result};

/// A scored payment; it borrows the record's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scored<'a> {
    /// The event id, unique per payment.
    pub event: &'a [u8],
    /// The merchant paid.
    pub merchant: &'a [u8],
    /// The merchant's region.
    pub region: &'a [u8],
    /// The amount.
    pub cents: i64,
    /// 1 when the paying account's total was over its limit, else 0.
    pub flagged: i64,
}

impl<'a> Scored<'a> {
    /// Parses `{"event":"...","merchant":"...","region":"...","cents":N,
    /// "flagged":0|1,...}` (any field order, more fields allowed: the
    /// accounts stage also sends the account and its total).
    pub fn parse(value: &'a [u8]) -> Result<Scored<'a>> {
        let bad = |e: Error| Error::new(format!("bad scored payment: {}", e));
        let obj = parse_object(value).map_err(bad)?;
        let s = Scored {
            event: obj.bytes("event").map_err(bad)?,
            merchant: obj.bytes("merchant").map_err(bad)?,
            region: obj.bytes("region").map_err(bad)?,
            cents: obj.int("cents").map_err(bad)?,
            flagged: obj.int("flagged").map_err(bad)?,
        };
        s.check()?;
        Ok(s)
    }

    /// Refuses empty names, negative amounts and a flag other than 0 or 1.
    fn check(&self) -> Result<()> {
        let event = quote(self.event);
        if self.event.is_empty() || self.merchant.is_empty() || self.region.is_empty() {
            return Err(Error::new(format!(
                "bad scored payment {}: event, merchant and region are required",
                event
            )));
        }
        if self.cents < 0 {
            return Err(Error::new(format!(
                "bad scored payment {}: negative cents {}",
                event, self.cents
            )));
        }
        if self.flagged != 0 && self.flagged != 1 {
            return Err(Error::new(format!(
                "bad scored payment {}: flagged is {}, want 0 or 1",
                event, self.flagged
            )));
        }
        Ok(())
    }
}
