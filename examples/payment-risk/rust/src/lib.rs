//! payment-risk: a running total of cents per account, deduplicated by
//! event id. This is also the `counter` reference operator of
//! conformance/OPERATORS.md, which builds this very source.
//!
//! Input records are keyed by account and carry JSON such as
//!
//! ```text
//! {"account":"acct-47","event":"evt-47","cents":1200}
//! ```
//!
//! An accepted event is emitted to output `out`, keyed by account, as
//!
//! ```text
//! {"account":"acct-47","event":"evt-47","cents":1200,"total":1200}
//! ```
//!
//! with an `event-id` header. A redelivered event id produces no output and
//! a debug log line. A record that does not parse, has an empty account or
//! event id, negative cents, more than the configured `max_cents` or another
//! account than its key fails, and the host sends it to the dead-letter
//! subject.
//!
//! Config (optional): `{"max_cents": N}`, N >= 0; 0 means no limit.
//!
//! State, per account: `total` (i64) and the map `seen` of event ids.

mod config;
mod payment;

use wasmstream::json::ObjectWriter;
use wasmstream::{
    debug, emit_with_headers, quote, Error, MapState, Operator, Record, Result, ValueState,
};

use config::Config;
use payment::Payment;

/// The account's running total in cents.
static TOTAL: ValueState<i64> = ValueState::new("total");
/// The event ids already counted for the account (`seen\0<event>` = 0x01).
static SEEN: MapState<bool> = MapState::new("seen");

/// Keeps running totals per account.
pub struct PaymentRisk {
    config: Config,
}

impl Operator for PaymentRisk {
    fn init(config: &[u8]) -> Result<Self> {
        Ok(PaymentRisk {
            config: Config::parse(config)?,
        })
    }

    fn process(&mut self, record: &Record<'_>) -> Result<()> {
        let p = Payment::parse(record.value())?;
        self.check(&p, record.key())?;
        if SEEN.get(p.event)?.is_some() {
            debug!(
                "duplicate event {} for account {} ignored",
                quote(p.event),
                quote(p.account)
            );
            return Ok(());
        }
        self.accept(&p)
    }
}

impl PaymentRisk {
    /// Refuses amounts out of range and payments filed under another key:
    /// state is scoped by the record key, so a total kept under the wrong
    /// key would be wrong without any error.
    fn check(&self, p: &Payment<'_>, key: &[u8]) -> Result<()> {
        let event = quote(p.event);
        if p.account.is_empty() {
            return Err(Error::new(format!("event {}: empty account", event)));
        }
        if p.event.is_empty() {
            return Err(Error::new("empty event id"));
        }
        if p.cents < 0 {
            return Err(Error::new(format!(
                "event {}: negative cents {}",
                event, p.cents
            )));
        }
        if let Some(max) = self.config.max_cents {
            if p.cents > max {
                return Err(Error::new(format!(
                    "event {}: {} cents is over max_cents {}",
                    event, p.cents, max
                )));
            }
        }
        if p.account != key {
            return Err(Error::new(format!(
                "event {}: account {} does not match the record key {}",
                event,
                quote(p.account),
                quote(key)
            )));
        }
        Ok(())
    }

    /// Adds the payment to the total, remembers its id and emits the result.
    fn accept(&self, p: &Payment<'_>) -> Result<()> {
        let total = TOTAL
            .get()?
            .unwrap_or(0)
            .checked_add(p.cents)
            .ok_or_else(|| {
                Error::new(format!(
                    "event {}: the total of account {} would overflow",
                    quote(p.event),
                    quote(p.account)
                ))
            })?;
        TOTAL.put(&total)?;
        SEEN.put(p.event, &true)?;
        let mut out = ObjectWriter::new();
        out.string("account", p.account)
            .string("event", p.event)
            .int("cents", p.cents)
            .int("total", total);
        emit_with_headers("out", p.account, out.finish(), &[("event-id", p.event)])
    }
}

wasmstream::export_operator!(PaymentRisk);

#[cfg(test)]
mod tests;
