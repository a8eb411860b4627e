//! merchants: stage 2 of the payment-graph example, totals per merchant of
//! the payments the accounts stage scored.
//!
//! Input records are keyed by merchant (the pipeline re-keys the accounts
//! stage's output) and carry JSON such as
//!
//! ```text
//! {"event":"evt-1","account":"acct-1","merchant":"m-1","region":"eu","cents":1200,"total":1200,"flagged":0}
//! ```
//!
//! Each one updates its merchant's count of payments, cents and count of
//! flagged payments, and emits two records:
//!
//! - to output `totals`, keyed by merchant, the merchant's new totals:
//!   `{"merchant":"m-1","count":1,"cents":1200,"flagged":0}`;
//! - to output `regional`, keyed by region, what the payment adds to its
//!   region, for the regions stage:
//!   `{"event":"evt-1","merchant":"m-1","region":"eu","cents":1200,"flagged":0}`.
//!
//! A record that does not parse, has an empty name, negative cents, a flag
//! other than 0 or 1 or another merchant than its key fails, and the host
//! sends it to the dead-letter subject. No config.
//!
//! State, per merchant: `count`, `cents` and `flagged` (i64 each).

mod scored;

use wasmstream::json::ObjectWriter;
use wasmstream::{emit, quote, Error, Operator, Record, Result, ValueState};

use scored::Scored;

/// The number of payments to the merchant.
static COUNT: ValueState<i64> = ValueState::new("count");
/// Their cents.
static CENTS: ValueState<i64> = ValueState::new("cents");
/// How many of them came from a flagged account.
static FLAGGED: ValueState<i64> = ValueState::new("flagged");

/// Keeps totals per merchant.
pub struct Merchants;

impl Operator for Merchants {
    fn init(config: &[u8]) -> Result<Self> {
        if !config.is_empty() {
            return Err(Error::new(format!(
                "payment-graph merchants takes no config, got {}",
                quote(config)
            )));
        }
        Ok(Merchants)
    }

    fn process(&mut self, record: &Record<'_>) -> Result<()> {
        let s = Scored::parse(record.value())?;
        if s.merchant != record.key() {
            // State is scoped by the record key: totals kept under another
            // key would be wrong without any error.
            return Err(Error::new(format!(
                "event {}: merchant {} does not match the record key {}",
                quote(s.event),
                quote(s.merchant),
                quote(record.key())
            )));
        }
        let count = add(&COUNT, 1)?;
        let cents = add(&CENTS, s.cents)?;
        let flagged = add(&FLAGGED, s.flagged)?;
        let mut totals = ObjectWriter::new();
        totals
            .string("merchant", s.merchant)
            .int("count", count)
            .int("cents", cents)
            .int("flagged", flagged);
        emit("totals", s.merchant, totals.finish())?;
        let mut delta = ObjectWriter::new();
        delta
            .string("event", s.event)
            .string("merchant", s.merchant)
            .string("region", s.region)
            .int("cents", s.cents)
            .int("flagged", s.flagged);
        emit("regional", s.region, delta.finish())
    }
}

/// Adds `n` to the value of `state` and returns the sum.
fn add(state: &ValueState<i64>, n: i64) -> Result<i64> {
    let sum = state
        .get()?
        .unwrap_or(0)
        .checked_add(n)
        .ok_or_else(|| Error::new(format!("state {} would overflow", state.name())))?;
    state.put(&sum)?;
    Ok(sum)
}

wasmstream::export_operator!(Merchants);

#[cfg(test)]
mod tests;
