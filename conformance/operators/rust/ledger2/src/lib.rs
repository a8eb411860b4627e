//! `ledger2` (conformance/OPERATORS.md): `ledger1`'s running total stored as
//! `{"total":N}`, version 2 of the state, with the migration from version 1
//! that an upgrade from `ledger1` runs.

use wasmstream::json::parse_int;
use wasmstream::{emit, Error, Operator, Record, Result, StateOptions, ValueState};

/// The key's running total as `{"total":N}`.
static TOTAL: ValueState<Vec<u8>> = ValueState::new("total");

const PREFIX: &[u8] = b"{\"total\":";
const SUFFIX: &[u8] = b"}";

/// ledger2's encoding of a total.
fn encode(total: i64) -> Vec<u8> {
    format!("{{\"total\":{}}}", total).into_bytes()
}

/// Reads ledger2's encoding of a total, exactly `{"total":N}`.
fn decode(b: &[u8]) -> Result<i64> {
    b.strip_prefix(PREFIX)
        .and_then(|rest| rest.strip_suffix(SUFFIX))
        .and_then(parse_int)
        .ok_or_else(|| Error::new("the stored total is not {\"total\":N}"))
}

/// Converts a version-1 total (decimal text): zero is deleted, a negative
/// total fails the upgrade.
fn migrate_total(_name: &[u8], from_version: i32, old: &[u8]) -> Result<Option<Vec<u8>>> {
    if from_version != 1 {
        return Err(Error::new(format!(
            "ledger2: no migration from version {}",
            from_version
        )));
    }
    let n = parse_int(old).ok_or("the version 1 total is not a decimal integer")?;
    match n {
        0 => Ok(None),
        n if n < 0 => Err(Error::new(format!(
            "ledger2: a total cannot be negative: version 1 holds {}",
            n
        ))),
        n => Ok(Some(encode(n))),
    }
}

/// Adds each record's amount to its key's total.
pub struct Ledger;

impl Operator for Ledger {
    fn init(_config: &[u8]) -> Result<Self> {
        TOTAL.declare(StateOptions::new().version(2).migrate(migrate_total));
        Ok(Ledger)
    }

    fn process(&mut self, record: &Record<'_>) -> Result<()> {
        let amount = parse_int(record.value())
            .ok_or("the amount must be a decimal integer of at most 18 digits")?;
        let sum = match TOTAL.get()? {
            Some(b) => decode(&b)?,
            None => 0,
        };
        if sum + amount < 0 {
            return Err(Error::new(format!(
                "ledger2: a total cannot be negative: {}{:+}",
                sum, amount
            )));
        }
        let value = encode(sum + amount);
        TOTAL.put(&value)?;
        emit("out", record.key(), value)
    }
}

wasmstream::export_operator!(Ledger);

#[cfg(test)]
mod tests {
    use wasmstream::testing::{Harness, Options, TestRecord};

    #[test]
    fn migrates_version_1_totals() {
        let mut h = Harness::<super::Ledger>::new(Options::default()).unwrap();
        assert_eq!(
            h.migrate("total", 1, "12"),
            Ok(Some(b"{\"total\":12}".to_vec()))
        );
        assert_eq!(h.migrate("total", 1, "0"), Ok(None));
        let err = h.migrate("total", 1, "-2").unwrap_err();
        assert!(
            err.contains("state \"total\"") && err.contains("cannot be negative"),
            "{}",
            err
        );
    }

    #[test]
    fn adds_amounts_in_the_new_encoding() {
        let mut h = Harness::<super::Ledger>::new(Options::default()).unwrap();
        h.set_state("a", "total", "{\"total\":10}");
        let res = h.process(&[TestRecord::new("a", "1"), TestRecord::new("a", "-20")]);
        assert_eq!(res.outputs.len(), 1);
        assert_eq!(res.dead_letters.len(), 1);
        assert_eq!(h.state("a", "total"), Some(b"{\"total\":11}".to_vec()));
    }
}
