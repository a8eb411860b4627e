//! `join` (conformance/OPERATORS.md): payments (input 0) checked against
//! per-account limits (input 1).

use wasmstream::json::{parse_int, parse_object};
use wasmstream::{emit, Error, Operator, Record, Result, ValueState};

/// The account's limit in cents.
static LIMIT: ValueState<i64> = ValueState::new("limit");

/// Input 0: payments; input 1: limits.
pub struct Join;

impl Operator for Join {
    fn init(_config: &[u8]) -> Result<Self> {
        Ok(Join)
    }

    fn process(&mut self, record: &Record<'_>) -> Result<()> {
        match record.input() {
            0 => payment(record),
            1 => limit(record.value()),
            n => Err(Error::new(format!(
                "input {} is neither payments (0) nor limits (1)",
                n
            ))),
        }
    }
}

/// Stores a limit: the whole value is a decimal integer.
fn limit(value: &[u8]) -> Result<()> {
    let n = parse_int(value).ok_or("a limit must be a decimal integer of at most 18 digits")?;
    LIMIT.put(&n)
}

/// Emits `<event>,<cents>,<limit>,<verdict>` for a payment.
fn payment(record: &Record<'_>) -> Result<()> {
    let obj = parse_object(record.value())?;
    let account = obj.bytes("account")?;
    let event = obj.bytes("event")?;
    let cents = obj.int("cents")?;
    if account.is_empty() || event.is_empty() {
        return Err(Error::new("a payment needs an account and an event id"));
    }
    if cents < 0 {
        return Err(Error::new(format!("negative cents {}", cents)));
    }
    let verdict = match LIMIT.get()? {
        None => "none,unknown".to_string(),
        Some(limit) if cents > limit => format!("{},over", limit),
        Some(limit) => format!("{},ok", limit),
    };
    let out = [
        event,
        b",",
        cents.to_string().as_bytes(),
        b",",
        verdict.as_bytes(),
    ]
    .concat();
    emit("out", record.key(), out)
}

wasmstream::export_operator!(Join);

#[cfg(test)]
mod tests {
    use wasmstream::testing::{Harness, Options, TestRecord};

    fn pay(key: &str, event: &str, cents: i64) -> TestRecord {
        TestRecord::new(
            key,
            format!(
                r#"{{"account":"{}","event":"{}","cents":{}}}"#,
                key, event, cents
            ),
        )
    }

    #[test]
    fn payments_are_checked_against_the_latest_limit() {
        let mut h = Harness::<super::Join>::new(Options::default()).unwrap();
        let res = h.process(&[
            pay("a", "e1", 5),
            TestRecord::new("a", "10").input(1),
            pay("a", "e2", 10),
            pay("a", "e3", 11),
            TestRecord::new("a", "-3").input(1),
            pay("a", "e4", 0),
            pay("b", "e5", 1),
        ]);
        let got: Vec<String> = res
            .outputs
            .iter()
            .map(|o| String::from_utf8(o.value.clone()).unwrap())
            .collect();
        assert_eq!(
            got,
            [
                "e1,5,none,unknown",
                "e2,10,10,ok",
                "e3,11,10,over",
                "e4,0,-3,over",
                "e5,1,none,unknown"
            ]
        );
        assert!(res.dead_letters.is_empty());
        assert_eq!(h.state("a", "limit"), Some((-3i64).to_le_bytes().to_vec()));
    }

    #[test]
    fn bad_records_and_inputs_are_record_errors() {
        let mut h = Harness::<super::Join>::new(Options::default()).unwrap();
        let res = h.process(&[
            TestRecord::new("a", "ten").input(1),
            TestRecord::new("a", " 10").input(1),
            TestRecord::new("a", r#"{"event":"e","cents":1}"#),
            pay("a", "e", -1),
            pay("a", "e", 1).input(2),
            TestRecord::new("a", r#"{"account":"","event":"e","cents":1}"#),
            TestRecord::new("a", r#"{"account":"a","event":"","cents":1}"#),
            pay("x", "e", 1).input(0),
        ]);
        assert_eq!(
            res.dead_letters
                .iter()
                .map(|d| d.record)
                .collect::<Vec<_>>(),
            [0, 1, 2, 3, 4, 5, 6]
        );
        assert_eq!(
            res.outputs.len(),
            1,
            "the account check is not part of join"
        );
    }
}
