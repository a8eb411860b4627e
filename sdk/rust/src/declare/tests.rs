//! Declarations: their ABI arguments, when they reach the host, how a
//! refusal fails `ws_init`, and the TTLs the fake host applies.

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::time::Duration;

use super::*;
use crate::abi::code;
use crate::driver::init_operator;
use crate::hostcall::native::{install, Host};
use crate::testing::{Declaration as Declared, Harness, Options, TestRecord};
use crate::{emit, MapState, Operator, Record, Result, ValueState};

const SEC: Duration = Duration::from_secs(1);

#[test]
fn options_become_the_abi_arguments() {
    let ttl = Ttl::new(Duration::from_millis(1500));
    let cases: &[(StateOptions, i32, i64, u32)] = &[
        (StateOptions::new(), 1, TTL_UNSET, 0),
        (StateOptions::default(), 1, TTL_UNSET, 0),
        (StateOptions::new().version(7), 7, TTL_UNSET, 0),
        (StateOptions::new().no_ttl(), 1, TTL_NEVER, 0),
        (StateOptions::new().ttl(ttl), 1, 1500, 0),
        (
            StateOptions::new().ttl(ttl.on_read_and_write()),
            1,
            1500,
            DECLARE_READ_AND_WRITE,
        ),
        (
            StateOptions::new().ttl(ttl.return_expired_if_not_cleaned()),
            1,
            1500,
            DECLARE_RETURN_EXPIRED,
        ),
        (
            StateOptions::new().ttl(ttl.in_event_time()),
            1,
            1500,
            DECLARE_EVENT_TIME,
        ),
        (
            StateOptions::new().version(3).ttl(
                ttl.on_read_and_write()
                    .return_expired_if_not_cleaned()
                    .in_event_time(),
            ),
            3,
            1500,
            7,
        ),
        // Whole milliseconds: the rest is dropped, as Go's Duration.Milliseconds does.
        (
            StateOptions::new().ttl(Ttl::new(Duration::from_micros(2999))),
            1,
            2,
            0,
        ),
        (
            StateOptions::new().ttl(Ttl::new(Duration::MAX)),
            1,
            i64::MAX,
            0,
        ),
        // The last setting of the expiry wins.
        (StateOptions::new().ttl(ttl).no_ttl(), 1, TTL_NEVER, 0),
    ];
    for (i, (o, version, ttl_ms, flags)) in cases.iter().enumerate() {
        let d = declaration("s", *o);
        assert_eq!(
            (d.version, d.ttl_ms, d.flags),
            (*version, *ttl_ms, *flags),
            "case {}: {:?}",
            i,
            o
        );
    }
}

#[test]
fn bad_options_panic_with_the_state_name() {
    let cases: &[(StateOptions, &str)] = &[
        (StateOptions::new().version(-1), "negative version -1"),
        (
            StateOptions::new().ttl(Ttl::new(Duration::from_micros(999))),
            "999000 ns is under one millisecond",
        ),
        (
            StateOptions::new().ttl(Ttl::new(Duration::ZERO)),
            "under one millisecond",
        ),
    ];
    for (o, want) in cases {
        let msg = panic_message(|| collect(|| declare_state("total", *o)));
        assert!(msg.contains(want), "{:?}: {}", o, msg);
        assert!(msg.contains("\"total\""), "names the state: {}", msg);
    }
}

#[test]
fn declaring_outside_init_panics() {
    let msg = panic_message(|| declare_state("total", StateOptions::new()));
    assert!(msg.contains("outside Operator::init"), "{}", msg);
    // A panic inside init closes the window too.
    let _ = panic_message(|| collect(|| panic!("init panics")));
    let msg = panic_message(|| declare_state("total", StateOptions::new()));
    assert!(msg.contains("outside Operator::init"), "{}", msg);
}

#[test]
fn bad_names_panic() {
    for name in ["", "a\0b"] {
        let msg = panic_message(|| collect(|| declare_state(name, StateOptions::new())));
        assert!(msg.contains("state name"), "{:?}: {}", name, msg);
    }
    let long = "n".repeat(1025);
    let msg = panic_message(|| collect(|| declare_state(&long, StateOptions::new())));
    assert!(msg.contains("too long"), "{}", msg);
}

fn panic_message(f: impl FnOnce()) -> String {
    let err = catch_unwind(AssertUnwindSafe(f)).expect_err("wanted a panic");
    match (err.downcast_ref::<String>(), err.downcast_ref::<&str>()) {
        (Some(s), _) => s.clone(),
        (_, Some(s)) => s.to_string(),
        _ => String::new(),
    }
}

// ---- what reaches the host, through the driver

/// Records state_declare and log calls; state_declare answers `answer`.
struct Recorder {
    answer: i32,
    declared: Vec<(Vec<u8>, i32, i64, u32)>,
    logs: Vec<(i32, String)>,
}

impl Host for Recorder {
    fn record_next(&mut self) -> i32 {
        0
    }
    fn state_get(&mut self, _: &[u8], _: &mut [u8]) -> i32 {
        code::NOT_FOUND
    }
    fn state_put(&mut self, _: &[u8], _: &[u8]) -> i32 {
        0
    }
    fn state_delete(&mut self, _: &[u8]) -> i32 {
        0
    }
    fn emit(&mut self, _: &[u8], _: &[u8], _: &[u8], _: &[u8]) -> i32 {
        0
    }
    fn log(&mut self, level: i32, msg: &[u8]) {
        self.logs
            .push((level, String::from_utf8_lossy(msg).into_owned()));
    }
    fn event_time(&mut self) -> i64 {
        0
    }
    fn processing_time(&mut self) -> i64 {
        0
    }
    fn state_declare(&mut self, name: &[u8], version: i32, ttl_ms: i64, flags: u32) -> i32 {
        self.declared.push((name.to_vec(), version, ttl_ms, flags));
        self.answer
    }
}

static TOTAL: ValueState<i64> = ValueState::new("total");
static SEEN: MapState<bool> = MapState::new("seen");

/// Declares per its config: "ok" three states (one twice), "reject" the
/// same and then fails.
struct Declarer;

impl Operator for Declarer {
    fn init(config: &[u8]) -> Result<Self> {
        SEEN.declare(StateOptions::new().ttl(Ttl::new(SEC)));
        TOTAL
            .declare(StateOptions::new().version(2))
            .declare(StateOptions::new().version(3).no_ttl());
        declare_state("other", StateOptions::new());
        if config == b"reject" {
            return Err("config rejected".into());
        }
        Ok(Declarer)
    }
    fn process(&mut self, _: &Record<'_>) -> Result<()> {
        Ok(())
    }
}

fn run_init(config: &[u8], answer: i32) -> (std::result::Result<(), i32>, Recorder) {
    let host = Rc::new(RefCell::new(Recorder {
        answer,
        declared: Vec::new(),
        logs: Vec::new(),
    }));
    let result = {
        let _guard = install(host.clone());
        init_operator::<Declarer>(config).map(|_| ())
    };
    let rec = Rc::try_unwrap(host).ok().expect("one owner").into_inner();
    (result, rec)
}

#[test]
fn declarations_are_sent_after_init_in_order_with_replacements() {
    let (result, rec) = run_init(b"", code::OK);
    assert_eq!(result, Ok(()));
    assert_eq!(
        rec.declared,
        vec![
            (b"seen".to_vec(), 1, 1000, 0),
            (b"total".to_vec(), 3, TTL_NEVER, 0),
            (b"other".to_vec(), 1, TTL_UNSET, 0),
        ]
    );
    assert!(rec.logs.is_empty(), "{:?}", rec.logs);
}

#[test]
fn a_rejected_config_sends_no_declarations() {
    let (result, rec) = run_init(b"reject", code::OK);
    assert_eq!(result, Err(code::GUEST_CONFIG));
    assert!(rec.declared.is_empty(), "{:?}", rec.declared);
    // Nothing lingers for the next init.
    let (_, rec) = run_init(b"", code::OK);
    assert_eq!(rec.declared.len(), 3);
}

#[test]
fn a_refused_declaration_fails_init_with_guest_internal_and_names_the_state() {
    let (result, rec) = run_init(b"", code::BAD_ARGUMENT);
    assert_eq!(result, Err(code::GUEST_INTERNAL));
    assert_eq!(rec.declared.len(), 1, "stops at the first refusal");
    assert_eq!(rec.logs.len(), 1, "{:?}", rec.logs);
    let (level, msg) = &rec.logs[0];
    assert_eq!(*level, Level::Error as i32);
    assert!(
        msg.starts_with("wasmstream: the host refused the declaration of state \"seen\""),
        "{}",
        msg
    );
    assert!(msg.contains("(BAD_ARGUMENT)"), "{}", msg);
}

#[test]
fn the_harness_records_declarations_as_the_host_does() {
    let h = Harness::<Declarer>::new(Options::default()).expect("init");
    let d = |name: &str, version, ttl_ms, flags| Declared {
        name: name.to_string(),
        version,
        ttl_ms,
        flags,
    };
    assert_eq!(
        h.declarations(),
        vec![
            d("seen", 1, 1000, 0),
            d("total", 3, TTL_NEVER, 0),
            d("other", 1, TTL_UNSET, 0),
        ]
    );
}

// ---- TTLs the fake host applies

static V: ValueState<i64> = ValueState::new("v");
static M: MapState<i64> = MapState::new("m");

/// Declares `v` and `m` with the TTL its config names; `put:n` writes n to
/// both, `get` emits `v` and `m[k]` ("-" when absent).
struct Expiring;

impl Operator for Expiring {
    fn init(config: &[u8]) -> Result<Self> {
        let ttl = Ttl::new(SEC);
        let ttl = match config {
            b"read" => ttl.on_read_and_write(),
            b"stale" => ttl.return_expired_if_not_cleaned(),
            b"event" => ttl.in_event_time(),
            _ => ttl,
        };
        V.declare(StateOptions::new().ttl(ttl));
        M.declare(StateOptions::new().ttl(ttl));
        Ok(Expiring)
    }
    fn process(&mut self, r: &Record<'_>) -> Result<()> {
        match r.value() {
            b"get" => {
                let show = |v: Option<i64>| v.map_or("-".to_string(), |n| n.to_string());
                let out = format!("{} {}", show(V.get()?), show(M.get("k")?));
                emit("out", r.key(), out)
            }
            v => {
                let n: i64 = std::str::from_utf8(v)?.parse().map_err(|_| "bad n")?;
                V.put(&n)?;
                M.put("k", &n)
            }
        }
    }
}

fn expiring(config: &str) -> Harness<Expiring> {
    Harness::new(Options {
        config: config.as_bytes().to_vec(),
        ..Options::default()
    })
    .expect("init")
}

fn get_at(h: &mut Harness<Expiring>, ms: i64) -> String {
    h.set_processing_time(ms * 1_000_000);
    let res = h.process(&[TestRecord::new("a", "get")]);
    String::from_utf8(res.outputs[0].value.clone()).unwrap()
}

fn put_at(h: &mut Harness<Expiring>, ms: i64, n: i64) {
    h.set_processing_time(ms * 1_000_000);
    let res = h.process(&[TestRecord::new("a", n.to_string())]);
    assert!(res.dead_letters.is_empty(), "{:?}", res.dead_letters);
}

#[test]
fn values_expire_after_their_ttl_in_processing_time() {
    let mut h = expiring("");
    put_at(&mut h, 0, 5);
    assert_eq!(get_at(&mut h, 999), "5 5");
    assert_eq!(get_at(&mut h, 1000), "- -", "expired at write + TTL");
    assert_eq!(h.state("a", "v"), None, "the read dropped it");
    put_at(&mut h, 2000, 6);
    assert_eq!(get_at(&mut h, 2500), "6 6");
}

#[test]
fn reads_move_the_expiry_with_on_read_and_write() {
    let mut h = expiring("read");
    put_at(&mut h, 0, 5);
    assert_eq!(get_at(&mut h, 900), "5 5");
    assert_eq!(
        get_at(&mut h, 1800),
        "5 5",
        "the read at 900 moved it to 1900"
    );
    assert_eq!(get_at(&mut h, 2700), "5 5");
    assert_eq!(get_at(&mut h, 3800), "- -");
    let mut h = expiring("");
    put_at(&mut h, 0, 5);
    assert_eq!(get_at(&mut h, 900), "5 5");
    assert_eq!(
        get_at(&mut h, 1800),
        "- -",
        "on create and write: reads do not"
    );
}

#[test]
fn expired_values_stay_visible_with_return_expired_if_not_cleaned() {
    let mut h = expiring("stale");
    put_at(&mut h, 0, 5);
    assert_eq!(get_at(&mut h, 5000), "5 5");
}

#[test]
fn event_time_ttls_count_on_the_records() {
    let mut h = expiring("event");
    h.set_processing_time(1_000_000 * 1_000_000);
    let at = |ms: i64, v: &str| TestRecord::new("a", v).event_time(ms * 1_000_000);
    h.process(&[at(10_000, "5")]);
    let res = h.process(&[at(10_999, "get"), at(11_000, "get")]);
    let got: Vec<&[u8]> = res.outputs.iter().map(|o| &o.value[..]).collect();
    assert_eq!(got, [&b"5 5"[..], &b"- -"[..]]);
}
