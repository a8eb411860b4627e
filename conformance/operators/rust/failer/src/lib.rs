//! `failer` (conformance/OPERATORS.md): fails on marked records.

use wasmstream::{emit_with_headers, Error, Operator, Record, Result, ValueState};

/// How many records of the key passed through.
static COUNT: ValueState<i64> = ValueState::new("count");

/// Counts and forwards records, fails on `fail...`, traps on `trap`.
pub struct Failer;

impl Operator for Failer {
    fn init(_config: &[u8]) -> Result<Self> {
        Ok(Failer)
    }

    fn process(&mut self, record: &Record<'_>) -> Result<()> {
        let value = record.value();
        if value.starts_with(b"fail") {
            return Err(Error::new("the record asks to fail"));
        }
        if value == b"trap" {
            panic!("the record asks to trap");
        }
        let n = COUNT.get()?.unwrap_or(0) + 1;
        COUNT.put(&n)?;
        emit_with_headers("out", record.key(), value, &[("count", n.to_string())])
    }
}

wasmstream::export_operator!(Failer);

#[cfg(test)]
mod tests {
    use wasmstream::testing::{Failure, Harness, Options, TestRecord};

    #[test]
    fn fails_traps_and_counts() {
        let mut h = Harness::<super::Failer>::new(Options::default()).unwrap();
        let res = h.process(&[
            TestRecord::new("k", "a"),
            TestRecord::new("k", "failing"),
            TestRecord::new("k", "trap"),
            TestRecord::new("k", "traps"),
        ]);
        let count = |n: &str| vec![(b"count".to_vec(), n.as_bytes().to_vec())];
        assert_eq!(res.outputs.len(), 2);
        assert_eq!(
            (&res.outputs[0].value[..], &res.outputs[0].headers),
            (&b"a"[..], &count("1"))
        );
        assert_eq!(
            (&res.outputs[1].value[..], &res.outputs[1].headers),
            (&b"traps"[..], &count("2"))
        );
        let dls: Vec<(usize, Failure)> = res
            .dead_letters
            .iter()
            .map(|d| (d.record, d.failure))
            .collect();
        assert_eq!(dls, [(1, Failure::Record), (2, Failure::Trap)]);
        assert_eq!(h.state("k", "count"), Some(2i64.to_le_bytes().to_vec()));
    }
}
