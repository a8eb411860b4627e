//! `dedup` (conformance/OPERATORS.md): the first delivery of each key wins.

use wasmstream::{emit, Operator, Record, Result, ValueState};

/// Present (one byte 0x01) once the key was delivered.
static SEEN: ValueState<bool> = ValueState::new("seen");

/// Forwards the first record of every key.
pub struct Dedup;

impl Operator for Dedup {
    fn init(_config: &[u8]) -> Result<Self> {
        Ok(Dedup)
    }

    fn process(&mut self, record: &Record<'_>) -> Result<()> {
        if SEEN.get()?.is_some() {
            return Ok(());
        }
        SEEN.put(&true)?;
        emit("out", record.key(), record.value())
    }
}

wasmstream::export_operator!(Dedup);

#[cfg(test)]
mod tests {
    use wasmstream::testing::{Harness, Options, TestRecord};

    #[test]
    fn only_the_first_record_of_a_key_passes() {
        let mut h = Harness::<super::Dedup>::new(Options::default()).unwrap();
        let res = h.process(&[
            TestRecord::new("a", "1").header("h", "x"),
            TestRecord::new("b", "2"),
            TestRecord::new("a", "3"),
        ]);
        let got: Vec<(&[u8], &[u8])> = res
            .outputs
            .iter()
            .map(|o| (&o.key[..], &o.value[..]))
            .collect();
        assert_eq!(got, [(&b"a"[..], &b"1"[..]), (&b"b"[..], &b"2"[..])]);
        assert!(
            res.outputs[0].headers.is_empty(),
            "no headers are forwarded"
        );
        assert!(h.process(&[TestRecord::new("b", "4")]).outputs.is_empty());
        assert_eq!(h.state("a", "seen"), Some(vec![1]));
    }
}
