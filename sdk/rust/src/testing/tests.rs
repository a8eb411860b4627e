//! The SDK end to end on the fake host: state, maps, emits, headers, logs,
//! time, errors and the batch semantics of failures.

use super::*;
use crate::{
    emit, emit_raw, emit_with_headers, event_time, processing_time, Error, ErrorKind, MapState,
    ValueState,
};

static COUNT: ValueState<i64> = ValueState::new("count");
static NOTES: MapState<String> = MapState::new("notes");
static BIG: ValueState<Vec<u8>> = ValueState::new("big");

/// Behaves according to the record value; see each arm.
struct Probe {
    prefix: String,
}

impl Operator for Probe {
    fn init(config: &[u8]) -> crate::Result<Self> {
        if config == b"bad" {
            return Err("config \"bad\" is rejected".into());
        }
        if config == b"panic" {
            panic!("init panics");
        }
        if config == b"touch-state" {
            COUNT.get()?;
        }
        Ok(Probe {
            prefix: String::from_utf8(config.to_vec())?,
        })
    }

    fn process(&mut self, r: &Record<'_>) -> crate::Result<()> {
        let v = std::str::from_utf8(r.value())?;
        let mut parts = v.splitn(3, ':');
        match (parts.next().unwrap_or(""), parts.next(), parts.next()) {
            ("count", _, _) => {
                let n = COUNT.get()?.unwrap_or(0) + 1;
                COUNT.put(&n)?;
                emit("out", r.key(), format!("{}{}", self.prefix, n))
            }
            ("note", Some(k), Some(text)) => NOTES.put(k, &text.to_string()),
            ("read", Some(k), _) => {
                let got = NOTES.get(k)?.unwrap_or_else(|| "absent".into());
                emit("out", r.key(), got)
            }
            ("forget", Some(k), _) => NOTES.delete(k),
            ("reset", _, _) => COUNT.delete(),
            ("big", Some(n), _) => {
                let n: usize = n.parse().map_err(|_| "bad size")?;
                BIG.put(&vec![7u8; n])?;
                let back = BIG.get()?.expect("just written");
                emit("out", r.key(), back.len().to_string())
            }
            ("echo", _, _) => {
                let mut hs: Vec<(Vec<u8>, Vec<u8>)> =
                    r.headers().map(|(n, v)| (n.to_vec(), v.to_vec())).collect();
                hs.push((
                    b"event-time".to_vec(),
                    event_time().to_string().into_bytes(),
                ));
                hs.push((b"input".to_vec(), r.input().to_string().into_bytes()));
                hs.push((
                    b"processing-time".to_vec(),
                    processing_time().to_string().into_bytes(),
                ));
                emit_with_headers("out", r.key(), r.value(), &hs)
            }
            ("forward", _, _) => emit_raw("out", r.key(), r.value(), r.raw_headers()),
            ("emit-to", Some(out), _) => match emit(out, "", "") {
                Err(e) => emit("out", "", format!("{:?}", e.kind())),
                Ok(()) => Ok(()),
            },
            ("emit-big", _, _) => match emit("out", "", vec![0u8; 2000]) {
                Err(e) => emit("out", "", format!("{:?}", e.kind())),
                Ok(()) => Ok(()),
            },
            ("spam", Some(n), _) => {
                for _ in 0..n.parse::<usize>().map_err(|_| "bad count")? {
                    emit("out", "", "x")?;
                }
                Ok(())
            }
            ("log", _, _) => {
                crate::trace!("t");
                crate::debug!("d");
                crate::info!("i{}", 1);
                crate::warn!("w");
                crate::error!("e");
                Ok(())
            }
            ("fail", _, _) => {
                COUNT.put(&-100)?;
                emit("out", "", "lost")?;
                Err(Error::new(format!("record {:?} fails", r.key())))
            }
            ("panic", _, _) => panic!("boom"),
            _ => Err(Error::new("unknown command")),
        }
    }
}

fn harness() -> Harness<Probe> {
    Harness::new(Options::default()).expect("init")
}

fn values(res: &BatchResult) -> Vec<String> {
    res.outputs
        .iter()
        .map(|o| String::from_utf8(o.value.clone()).unwrap())
        .collect()
}

#[test]
fn value_state_is_per_key_and_survives_batches() {
    let mut h = harness();
    let res = h.process(&[
        TestRecord::new("a", "count"),
        TestRecord::new("b", "count"),
        TestRecord::new("a", "count"),
    ]);
    assert_eq!(values(&res), ["1", "1", "2"]);
    assert_eq!(res.outputs[2].key, b"a");
    assert_eq!(res.outputs[2].record, 2);
    assert_eq!(
        h.process(&[TestRecord::new("a", "count")]).outputs[0].value,
        b"3"
    );
    assert_eq!(h.state("a", "count"), Some(3i64.to_le_bytes().to_vec()));
    h.process(&[TestRecord::new("a", "reset")]);
    assert_eq!(h.state("a", "count"), None);
    assert_eq!(
        h.process(&[TestRecord::new("a", "count")]).outputs[0].value,
        b"1"
    );
}

#[test]
fn map_entries_are_named_name_nul_key() {
    let mut h = harness();
    let res = h.process(&[
        TestRecord::new("k", "note:x:hello"),
        TestRecord::new("k", "read:x"),
        TestRecord::new("k", "read:y"),
        TestRecord::new("other", "read:x"),
    ]);
    assert_eq!(values(&res), ["hello", "absent", "absent"]);
    assert_eq!(h.state("k", b"notes\0x"), Some(b"hello".to_vec()));
    h.process(&[TestRecord::new("k", "forget:x")]);
    assert_eq!(h.state("k", b"notes\0x"), None);
}

#[test]
fn map_keys_over_the_name_limit_are_bad_arguments() {
    let mut h = harness();
    let long = "k".repeat(MAX_KEY + 1);
    let res = h.process(&[TestRecord::new("k", format!("read:{}", long))]);
    assert_eq!(res.dead_letters.len(), 1);
    assert!(
        res.dead_letters[0].reason.contains("map get \"notes["),
        "{}",
        res.dead_letters[0].reason
    );
    let res = h.process(&[TestRecord::new(
        "k",
        format!("note:{}:v", "k".repeat(MAX_KEY)),
    )]);
    assert!(res.dead_letters.is_empty(), "{:?}", res.dead_letters);
}

/// 1024 bytes minus "notes" and the NUL.
const MAX_KEY: usize = 1024 - 6;

#[test]
fn values_larger_than_the_read_buffer_are_read_back() {
    let mut h = harness();
    let res = h.process(&[
        TestRecord::new("k", "big:0"),
        TestRecord::new("k", "big:257"),
        TestRecord::new("k", "big:200000"),
    ]);
    assert_eq!(values(&res), ["0", "257", "200000"]);
}

#[test]
fn headers_time_and_input_reach_the_operator() {
    let mut h = Harness::<Probe>::new(Options {
        processing_time: 99,
        ..Options::default()
    })
    .unwrap();
    let rec = TestRecord::new("k", "echo")
        .header("a", "1")
        .header("a", "2")
        .event_time(-7)
        .input(3);
    let res = h.process(&[rec]);
    let hs: Vec<(String, String)> = res.outputs[0]
        .headers
        .iter()
        .map(|(n, v)| {
            (
                String::from_utf8(n.clone()).unwrap(),
                String::from_utf8(v.clone()).unwrap(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = [
        ("a", "1"),
        ("a", "2"),
        ("event-time", "-7"),
        ("input", "3"),
        ("processing-time", "99"),
    ]
    .iter()
    .map(|(n, v)| (n.to_string(), v.to_string()))
    .collect();
    assert_eq!(hs, want);
    let fwd = h.process(&[TestRecord::new("k", "forward").header("x", "y")]);
    assert_eq!(fwd.outputs[0].headers, vec![(b"x".to_vec(), b"y".to_vec())]);
}

#[test]
fn host_codes_become_error_kinds() {
    let opts = Options {
        max_value_len: 1000,
        max_emits_per_record: 3,
        ..Options::default()
    };
    let mut h = Harness::<Probe>::new(opts).unwrap();
    let res = h.process(&[
        TestRecord::new("k", "emit-to:nope"),
        TestRecord::new("k", "emit-big"),
        TestRecord::new("k", format!("emit-to:{}", "o".repeat(256))),
    ]);
    assert_eq!(values(&res), ["UnknownOutput", "TooLarge", "BadArgument"]);
    let res = h.process(&[
        TestRecord::new("k", "spam:3"),
        TestRecord::new("k", "spam:4"),
    ]);
    assert_eq!(res.outputs.len(), 3);
    assert_eq!(res.dead_letters[0].record, 1);
    assert!(
        res.dead_letters[0].reason.contains("QUOTA_EXCEEDED"),
        "{}",
        res.dead_letters[0].reason
    );
}

#[test]
fn a_failed_record_is_dead_lettered_and_its_effects_dropped() {
    let mut h = harness();
    let res = h.process(&[
        TestRecord::new("k", "count"),
        TestRecord::new("k", "fail"),
        TestRecord::new("k", "count"),
    ]);
    assert_eq!(
        values(&res),
        ["1", "2"],
        "the batch ran again without the failed record"
    );
    assert_eq!(res.outputs[1].record, 2);
    assert_eq!(res.dead_letters.len(), 1);
    let dl = &res.dead_letters[0];
    assert_eq!((dl.record, dl.failure), (1, Failure::Record));
    assert!(dl.reason.contains("record [107] fails"), "{}", dl.reason);
    assert_eq!(h.state("k", "count"), Some(2i64.to_le_bytes().to_vec()));
    let err = res.logs.iter().find(|l| l.level == Level::Error).unwrap();
    assert_eq!(err.record, Some(1));
}

#[test]
fn a_panic_is_a_trap_and_the_operator_is_rebuilt() {
    let mut h = Harness::<Probe>::new(Options {
        config: b"n=".to_vec(),
        ..Options::default()
    })
    .unwrap();
    let res = h.process(&[
        TestRecord::new("k", "count"),
        TestRecord::new("k", "panic"),
        TestRecord::new("k", "count"),
    ]);
    assert_eq!(values(&res), ["n=1", "n=2"]);
    assert_eq!(res.dead_letters[0].failure, Failure::Trap);
    assert_eq!(res.dead_letters[0].reason, "boom");
    assert_eq!(h.operator().prefix, "n=", "rebuilt from the same config");
}

#[test]
fn every_record_failing_leaves_nothing() {
    let mut h = harness();
    let res = h.process(&[TestRecord::new("k", "fail"), TestRecord::new("k", "what")]);
    assert!(res.outputs.is_empty());
    assert_eq!(
        res.dead_letters
            .iter()
            .map(|d| d.record)
            .collect::<Vec<_>>(),
        [0, 1]
    );
    assert_eq!(h.state("k", "count"), None);
}

#[test]
fn logs_carry_levels_and_the_record() {
    let mut h = harness();
    let res = h.process(&[TestRecord::new("k", "count"), TestRecord::new("k", "log")]);
    let got: Vec<(Level, &str, Option<usize>)> = res
        .logs
        .iter()
        .map(|l| (l.level, l.message.as_str(), l.record))
        .collect();
    assert_eq!(
        got,
        [
            (Level::Trace, "t", Some(1)),
            (Level::Debug, "d", Some(1)),
            (Level::Info, "i1", Some(1)),
            (Level::Warn, "w", Some(1)),
            (Level::Error, "e", Some(1)),
        ]
    );
}

#[test]
fn init_errors_map_to_guest_config() {
    let e = Harness::<Probe>::new(Options {
        config: b"bad".to_vec(),
        ..Options::default()
    })
    .err()
    .unwrap();
    assert_eq!((e.code, e.trapped), (code::GUEST_CONFIG, false));
    assert!(
        e.message.contains("config \"bad\" is rejected"),
        "{}",
        e.message
    );
    let e = Harness::<Probe>::new(Options {
        config: vec![0xff],
        ..Options::default()
    })
    .err()
    .unwrap();
    assert_eq!(
        e.code,
        code::GUEST_CONFIG,
        "a UTF-8 error through ? is a config error too"
    );
    let e = Harness::<Probe>::new(Options {
        config: b"panic".to_vec(),
        ..Options::default()
    })
    .err()
    .unwrap();
    assert!(e.trapped);
    assert_eq!(e.message, "init panics");
}

#[test]
fn state_calls_in_init_are_a_fatal_misuse() {
    let e = Harness::<Probe>::new(Options {
        config: b"touch-state".to_vec(),
        ..Options::default()
    })
    .err()
    .unwrap();
    assert!(e.trapped);
    assert!(e.message.contains("NO_RECORD"), "{}", e.message);
}

#[test]
fn error_kinds_of_decoding() {
    let mut h = harness();
    h.set_state("k", "count", [1, 2, 3]);
    let res = h.process(&[TestRecord::new("k", "count")]);
    let reason = &res.dead_letters[0].reason;
    assert!(
        reason.contains("state get \"count\": i64 wants exactly 8 bytes, got 3"),
        "{}",
        reason
    );
    let _ = ErrorKind::Decode;
}
