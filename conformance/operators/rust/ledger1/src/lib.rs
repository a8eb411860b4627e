//! `ledger1` (conformance/OPERATORS.md): a running total per key, stored as
//! decimal text under the state's first version (never declared).

use wasmstream::json::parse_int;
use wasmstream::{emit, Error, Operator, Record, Result, ValueState};

/// The key's running total as decimal text.
static TOTAL: ValueState<Vec<u8>> = ValueState::new("total");

/// Adds each record's amount to its key's total.
pub struct Ledger;

impl Operator for Ledger {
    fn init(_config: &[u8]) -> Result<Self> {
        Ok(Ledger)
    }

    fn process(&mut self, record: &Record<'_>) -> Result<()> {
        let amount = parse_int(record.value())
            .ok_or("the amount must be a decimal integer of at most 18 digits")?;
        let sum = match TOTAL.get()? {
            Some(text) => parse_int(&text)
                .ok_or_else(|| Error::new("the stored total is not a decimal integer"))?,
            None => 0,
        };
        let text = (sum + amount).to_string();
        TOTAL.put(&text.clone().into_bytes())?;
        emit("out", record.key(), text)
    }
}

wasmstream::export_operator!(Ledger);

#[cfg(test)]
mod tests {
    use wasmstream::testing::{Harness, Options, TestRecord};

    #[test]
    fn adds_amounts_as_decimal_text() {
        let mut h = Harness::<super::Ledger>::new(Options::default()).unwrap();
        let res = h.process(&[
            TestRecord::new("a", "5"),
            TestRecord::new("a", "x"),
            TestRecord::new("a", "-7"),
        ]);
        assert_eq!(res.outputs.len(), 2);
        assert_eq!(res.dead_letters.len(), 1);
        assert_eq!(h.state("a", "total"), Some(b"-2".to_vec()));
        assert!(h.declarations().is_empty(), "version 1 is never declared");
    }
}
