//! The operator on the SDK's in-memory host (`cargo test`).

use wasmstream::code;
use wasmstream::testing::{Failure, Harness, Options, TestRecord};

use super::PaymentRisk;

fn harness(config: &str) -> Harness<PaymentRisk> {
    Harness::new(Options {
        config: config.as_bytes().to_vec(),
        ..Options::default()
    })
    .expect("config accepted")
}

fn payment(account: &str, event: &str, cents: i64) -> TestRecord {
    let v = format!(
        r#"{{"account":"{}","event":"{}","cents":{}}}"#,
        account, event, cents
    );
    TestRecord::new(account, v)
}

#[test]
fn the_pinned_events_give_the_pinned_outputs() {
    let mut h = harness(r#"{"max_cents":100000000}"#);
    let res = h.process(&[
        payment("acct-47", "evt-47", 1200),
        payment("acct-47", "evt-48", 900),
    ]);
    // The redelivery comes in a later batch, as after a restart.
    let again = h.process(&[payment("acct-47", "evt-48", 900)]);
    let values: Vec<&[u8]> = res.outputs.iter().map(|o| o.value.as_slice()).collect();
    assert_eq!(
        values,
        [
            &br#"{"account":"acct-47","event":"evt-47","cents":1200,"total":1200}"#[..],
            &br#"{"account":"acct-47","event":"evt-48","cents":900,"total":2100}"#[..],
        ]
    );
    assert_eq!(res.outputs[0].key, b"acct-47");
    assert_eq!(
        res.outputs[0].headers,
        vec![(b"event-id".to_vec(), b"evt-47".to_vec())]
    );
    assert!(again.outputs.is_empty() && again.dead_letters.is_empty());
    assert!(again
        .logs
        .iter()
        .any(|l| l.message.contains("duplicate event \"evt-48\"")));
    assert_eq!(
        h.state("acct-47", "total"),
        Some(2100i64.to_le_bytes().to_vec())
    );
    assert_eq!(h.state("acct-47", b"seen\0evt-48"), Some(vec![1]));
}

#[test]
fn a_duplicate_within_one_batch_is_dropped_too() {
    let mut h = harness("");
    let res = h.process(&[
        payment("a", "e1", 5),
        payment("a", "e1", 5),
        payment("a", "e2", 1),
    ]);
    assert_eq!(res.outputs.len(), 2);
    assert_eq!(
        res.outputs[1].value,
        br#"{"account":"a","event":"e2","cents":1,"total":6}"#.to_vec()
    );
}

#[test]
fn bad_records_are_dead_lettered_without_effect() {
    let mut h = harness(r#"{"max_cents":1000}"#);
    let cases = [
        (TestRecord::new("a", "not json"), "bad payment event"),
        (
            TestRecord::new("a", r#"{"account":"a","event":"e"}"#),
            "\"cents\" is missing",
        ),
        (
            TestRecord::new("a", r#"{"account":"a","event":"e","cents":"5"}"#),
            "not an integer",
        ),
        (
            TestRecord::new("a", r#"{"account":"a","event":7,"cents":5}"#),
            "not a string",
        ),
        (
            TestRecord::new("a", r#"{"account":"a","event":"e","cents":1.5}"#),
            "\"1.5\" is not a string or a decimal integer",
        ),
        (payment("a", "e", -1), "negative cents -1"),
        (payment("a", "e", 1001), "over max_cents 1000"),
        (
            TestRecord::new("b", r#"{"account":"a","event":"e","cents":5}"#),
            "does not match the record key",
        ),
    ];
    for (rec, reason) in cases {
        let res = h.process(std::slice::from_ref(&rec));
        assert!(res.outputs.is_empty(), "{:?}", rec);
        assert_eq!(res.dead_letters.len(), 1, "{:?}", rec);
        let dl = &res.dead_letters[0];
        assert_eq!(dl.failure, Failure::Record);
        assert!(dl.reason.contains(reason), "{:?}: {}", rec, dl.reason);
    }
    assert_eq!(h.state("a", "total"), None);
    assert_eq!(h.state("a", b"seen\0e"), None);
}

#[test]
fn max_cents_is_inclusive_and_zero_means_no_limit() {
    let mut h = harness(r#"{"max_cents":1000}"#);
    assert_eq!(h.process(&[payment("a", "e", 1000)]).outputs.len(), 1);
    let mut h = harness(r#"{ "max_cents" : 0 }"#);
    assert_eq!(h.process(&[payment("a", "e1", 1_000_000)]).outputs.len(), 1);
    let mut h = harness("");
    assert_eq!(
        h.process(&[payment("a", "e", 999_999_999_999_999_999)])
            .outputs
            .len(),
        1
    );
}

#[test]
fn an_overflowing_total_is_a_record_error() {
    let mut h = harness("");
    h.set_state("a", "total", i64::MAX.to_le_bytes());
    let res = h.process(&[payment("a", "e", 1)]);
    assert!(
        res.dead_letters[0].reason.contains("would overflow"),
        "{}",
        res.dead_letters[0].reason
    );
}

#[test]
fn configs_other_than_max_cents_are_rejected() {
    let bad = [
        "{\"max_cents\":\"5\"}",
        "{\"max_cent\":5}",
        "{\"max_cents\":5,\"x\":1}",
        "{\"max_cents\":5,\"max_cents\":6}",
        "{\"max_cents\":-1}",
        "[5]",
        "5",
        "{\"max_cents\":5",
        "\t{}",
    ];
    for cfg in bad {
        let e = Harness::<PaymentRisk>::new(Options {
            config: cfg.as_bytes().to_vec(),
            ..Options::default()
        })
        .err()
        .unwrap_or_else(|| panic!("config {:?} was accepted", cfg));
        assert_eq!(e.code, code::GUEST_CONFIG, "{:?}", cfg);
        assert!(e.message.contains("max_cents"), "{:?}: {}", cfg, e.message);
    }
}

#[test]
fn blank_and_empty_configs_set_no_limit() {
    for cfg in [
        "",
        " ",
        " \t\r\n",
        "\u{a0}\u{3000}",
        "{}",
        " { } ",
        "{\"max_cents\":0}",
    ] {
        assert_eq!(harness(cfg).operator().config.max_cents, None, "{:?}", cfg);
    }
    assert_eq!(
        harness("{\"max_cents\":7}").operator().config.max_cents,
        Some(7)
    );
}

#[test]
fn empty_accounts_and_event_ids_are_record_errors() {
    let mut h = harness("");
    let res = h.process(&[
        TestRecord::new("", r#"{"account":"","event":"e","cents":1}"#),
        payment("a", "", 1),
    ]);
    assert!(res.outputs.is_empty());
    assert_eq!(res.dead_letters.len(), 2);
}

#[test]
fn output_strings_are_escaped_as_go_does() {
    let mut h = harness("");
    let res = h.process(&[TestRecord::new(
        "a<&>",
        "{\"account\":\"a<&>\",\"event\":\"e\u{2028}\",\"cents\":1}",
    )]);
    let o = &res.outputs[0];
    assert_eq!(
        o.value,
        br#"{"account":"a\u003c\u0026\u003e","event":"e\u2028","cents":1,"total":1}"#.to_vec()
    );
    assert_eq!(o.key, b"a<&>");
    assert_eq!(o.headers[0].1, "e\u{2028}".as_bytes());
}
