//! The operator on the SDK's in-memory host (`cargo test`).

use wasmstream::testing::{Failure, Harness, Options, TestRecord};

use super::Merchants;

fn harness() -> Harness<Merchants> {
    Harness::new(Options {
        outputs: vec!["totals".into(), "regional".into()],
        ..Options::default()
    })
    .expect("no config accepted")
}

fn scored(event: &str, merchant: &str, region: &str, cents: i64, flagged: i64) -> TestRecord {
    let v = format!(
        r#"{{"event":"{}","account":"acct-1","merchant":"{}","region":"{}","cents":{},"total":{},"flagged":{}}}"#,
        event, merchant, region, cents, cents, flagged
    );
    TestRecord::new(merchant, v)
}

fn values(res: &wasmstream::testing::BatchResult, output: &str) -> Vec<String> {
    res.outputs
        .iter()
        .filter(|o| o.output == output)
        .map(|o| String::from_utf8(o.value.clone()).unwrap())
        .collect()
}

#[test]
fn totals_per_merchant_and_one_delta_per_payment() {
    let mut h = harness();
    let res = h.process(&[
        scored("evt-1", "m-1", "eu", 1200, 0),
        scored("evt-2", "m-2", "us", 3000, 0),
        scored("evt-5", "m-1", "eu", 2600, 1),
    ]);
    assert!(res.dead_letters.is_empty(), "{:?}", res.dead_letters);
    assert_eq!(
        values(&res, "totals"),
        [
            r#"{"merchant":"m-1","count":1,"cents":1200,"flagged":0}"#,
            r#"{"merchant":"m-2","count":1,"cents":3000,"flagged":0}"#,
            r#"{"merchant":"m-1","count":2,"cents":3800,"flagged":1}"#,
        ]
    );
    assert_eq!(
        values(&res, "regional")[2],
        r#"{"event":"evt-5","merchant":"m-1","region":"eu","cents":2600,"flagged":1}"#
    );
    let keys: Vec<&[u8]> = res.outputs.iter().map(|o| o.key.as_slice()).collect();
    assert_eq!(keys, [&b"m-1"[..], b"eu", b"m-2", b"us", b"m-1", b"eu"]);
    assert_eq!(
        h.state("m-1", "cents"),
        Some(3800i64.to_le_bytes().to_vec())
    );
    assert_eq!(h.state("m-1", "flagged"), Some(1i64.to_le_bytes().to_vec()));
}

#[test]
fn bad_records_are_dead_lettered_without_effect() {
    let mut h = harness();
    let cases = [
        (TestRecord::new("m", "not json"), "bad scored payment"),
        (scored("e", "m", "eu", -1, 0), "negative cents -1"),
        (scored("e", "m", "eu", 1, 2), "flagged is 2"),
        (scored("e", "m", "", 1, 0), "region are required"),
        (
            TestRecord::new(
                "other",
                r#"{"event":"e","merchant":"m","region":"eu","cents":1,"flagged":0}"#,
            ),
            "does not match the record key",
        ),
    ];
    for (rec, reason) in cases {
        let res = h.process(std::slice::from_ref(&rec));
        assert!(res.outputs.is_empty(), "{:?}", rec);
        assert_eq!(res.dead_letters.len(), 1, "{:?}", rec);
        assert_eq!(res.dead_letters[0].failure, Failure::Record);
        assert!(
            res.dead_letters[0].reason.contains(reason),
            "{:?}: {}",
            rec,
            res.dead_letters[0].reason
        );
    }
    assert_eq!(h.state("m", "count"), None);
}

#[test]
fn a_config_is_refused() {
    let h = Harness::<Merchants>::new(Options {
        config: b"{}".to_vec(),
        ..Options::default()
    });
    assert!(h.is_err());
}
