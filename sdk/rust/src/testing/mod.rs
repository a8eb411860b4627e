//! Unit-test operators natively with `cargo test`, no wasm and no host
//! needed. [`Harness`] runs an operator through the same batch code as the
//! wasm exports, against an in-memory host that checks every call as the
//! real host does (name and value limits, wired outputs, the emit quota,
//! calls outside a record, state declarations) and has its batch semantics:
//! a batch's state writes and emits count only when the batch succeeds, and
//! a failed record is dead-lettered and the batch run again without it
//! (abi/ABI.md §7.3). It applies declared TTLs against
//! [`Harness::set_processing_time`] or the records' event times, so that
//! expiry can be tested (without the host's cleanup sweep: [`Harness::state`]
//! shows an expired value until a read drops it).
//!
//! ```ignore
//! let mut h = Harness::<Counter>::new(Options::default()).unwrap();
//! let res = h.process(&[TestRecord::new("acct-47", r#"{"cents":5}"#)]);
//! assert_eq!(res.outputs[0].value, b"5");
//! assert_eq!(h.state("acct-47", "total"), Some(5i64.to_le_bytes().to_vec()));
//! ```
//!
//! Only on non-wasm targets. Panics inside the operator are caught and
//! reported as traps, so test with the default `panic = "unwind"` profile.

mod fake_host;

use std::cell::RefCell;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

use crate::abi::{code, DEFAULT_MAX_VALUE_LEN};
use crate::batch::encode_batch;
use crate::driver::{init_operator, process_batch};
use crate::headers::append_header;
use crate::hostcall::native::install;
use crate::log::Level;
use crate::migrate::{last_migrated, migrate_value};
use crate::operator::Operator;
use crate::record::Record;

use fake_host::{BatchRecord, FakeHost};

/// How the fake host is set up, as the pipeline file would.
#[derive(Debug, Clone)]
pub struct Options {
    /// The operator's config bytes, handed to `Operator::init`.
    pub config: Vec<u8>,
    /// The output names the operator may emit to. Default: `["out"]`.
    pub outputs: Vec<String>,
    /// `limits.max_value_bytes`. Default: 1 MiB.
    pub max_value_len: usize,
    /// `limits.max_emits_per_record`. Default: 64.
    pub max_emits_per_record: usize,
    /// What `processing_time()` returns, Unix nanoseconds. Default: 0.
    pub processing_time: i64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            config: Vec::new(),
            outputs: vec!["out".to_string()],
            max_value_len: DEFAULT_MAX_VALUE_LEN,
            max_emits_per_record: 64,
            processing_time: 0,
        }
    }
}

/// An input record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TestRecord {
    /// The record key; state calls address it.
    pub key: Vec<u8>,
    /// The payload.
    pub value: Vec<u8>,
    /// Headers in order.
    pub headers: Vec<(Vec<u8>, Vec<u8>)>,
    /// Unix nanoseconds.
    pub event_time: i64,
    /// The input index.
    pub input: u32,
}

impl TestRecord {
    /// A record on input 0 at event time 0 with no headers.
    pub fn new(key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) -> TestRecord {
        TestRecord {
            key: key.as_ref().to_vec(),
            value: value.as_ref().to_vec(),
            ..TestRecord::default()
        }
    }

    /// Sets the input index.
    pub fn input(mut self, input: u32) -> TestRecord {
        self.input = input;
        self
    }

    /// Sets the event time, Unix nanoseconds.
    pub fn event_time(mut self, ns: i64) -> TestRecord {
        self.event_time = ns;
        self
    }

    /// Adds a header.
    pub fn header(mut self, name: impl AsRef<[u8]>, value: impl AsRef<[u8]>) -> TestRecord {
        self.headers
            .push((name.as_ref().to_vec(), value.as_ref().to_vec()));
        self
    }
}

/// A record the operator emitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Emitted {
    /// The output name.
    pub output: String,
    /// The key.
    pub key: Vec<u8>,
    /// The value.
    pub value: Vec<u8>,
    /// The headers in order.
    pub headers: Vec<(Vec<u8>, Vec<u8>)>,
    /// The index, in the slice given to `process`, of the record that emitted it.
    pub record: usize,
}

/// A line the operator logged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// The level.
    pub level: Level,
    /// The message.
    pub message: String,
    /// The index of the current record within its attempt, if one was current.
    pub record: Option<usize>,
}

/// A state declaration the operator's `init` made (`state_declare`), in
/// the ABI's numbers, as the host records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    /// The state name (a map's name for a map state).
    pub name: String,
    /// The version, 1 or more.
    pub version: i32,
    /// `TTL_UNSET` (0), `TTL_NEVER` (-1), or the TTL in milliseconds.
    pub ttl_ms: i64,
    /// `DECLARE_*` bits.
    pub flags: u32,
}

/// Why a record was dead-lettered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// `process` returned an error (`GUEST_RECORD`); the instance is kept.
    Record,
    /// The operator panicked or `ws_process` returned another code: a trap;
    /// the harness builds a new operator, as the host makes a new instance.
    Trap,
    /// A fatal ABI misuse (e.g. a state call in `init`); also a new operator.
    Misuse,
}

/// A dead-lettered record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeadLetter {
    /// The index, in the slice given to `process`, of the record.
    pub record: usize,
    /// How it failed.
    pub failure: Failure,
    /// The error logged by the SDK, the panic message or the misuse.
    pub reason: String,
}

/// What one `Harness::process` call produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BatchResult {
    /// The emits of the successful run, in order.
    pub outputs: Vec<Emitted>,
    /// The records that failed, in the order they failed.
    pub dead_letters: Vec<DeadLetter>,
    /// Every line logged, failed attempts included.
    pub logs: Vec<LogLine>,
}

/// `Operator::init` failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitError {
    /// The `ws_init` result: `GUEST_CONFIG`, `GUEST_INTERNAL`; `GUEST_INTERNAL`
    /// as well when init panicked (`trapped`).
    pub code: i32,
    /// True when init panicked or misused the ABI.
    pub trapped: bool,
    /// The logged reason or the panic message.
    pub message: String,
}

impl fmt::Display for InitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ws_init failed ({}): {}",
            code::name(self.code).unwrap_or("?"),
            self.message
        )
    }
}

impl std::error::Error for InitError {}

/// Runs an operator of type `T` against an in-memory host. See the module
/// documentation.
pub struct Harness<T: Operator> {
    op: Option<T>,
    host: Rc<RefCell<FakeHost>>,
}

/// The result of one guest call: its code, or the panic's message.
enum Outcome {
    Returned(i32),
    Panicked(String),
}

impl<T: Operator> Harness<T> {
    /// Builds the operator with `options.config`, as `ws_init` does.
    pub fn new(options: Options) -> Result<Harness<T>, InitError> {
        let mut h = Harness {
            op: None,
            host: Rc::new(RefCell::new(FakeHost::new(options))),
        };
        h.init()?;
        Ok(h)
    }

    fn init(&mut self) -> Result<(), InitError> {
        let config = self.host.borrow().options.config.clone();
        {
            let mut host = self.host.borrow_mut();
            host.begin(Vec::new());
            host.in_init = true;
        }
        let outcome = self.guest_call(|| init_operator::<T>(&config));
        self.host.borrow_mut().in_init = false;
        let fail = |code, trapped, message| {
            Err(InitError {
                code,
                trapped,
                message,
            })
        };
        match outcome {
            Ok(Ok(op)) => {
                self.op = Some(op);
                Ok(())
            }
            Ok(Err(c)) => fail(c, false, self.last_error_log()),
            Err(msg) => fail(code::GUEST_INTERNAL, true, msg),
        }
    }

    /// Runs `f` with the fake host installed, catching a panic.
    fn guest_call<R>(&mut self, f: impl FnOnce() -> R) -> Result<R, String> {
        let _guard = install(self.host.clone());
        catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
            if let Some(s) = p.downcast_ref::<&str>() {
                s.to_string()
            } else if let Some(s) = p.downcast_ref::<String>() {
                s.clone()
            } else {
                "panic with a non-string payload".to_string()
            }
        })
    }

    fn last_error_log(&self) -> String {
        let host = self.host.borrow();
        host.logs
            .iter()
            .rev()
            .find(|l| l.level == Level::Error)
            .map(|l| l.message.clone())
            .unwrap_or_default()
    }

    /// Processes `records` as one batch and returns what came out, with the
    /// host's handling of failures: each failed record is dead-lettered and
    /// the batch runs again, from its first record, without it.
    pub fn process(&mut self, records: &[TestRecord]) -> BatchResult {
        let mut result = BatchResult::default();
        let mut live: Vec<usize> = (0..records.len()).collect();
        while !live.is_empty() {
            let (outcome, current) = self.attempt(records, &live);
            result.logs.append(&mut self.host.borrow_mut().logs);
            let failure = match outcome {
                Outcome::Returned(code::OK) => {
                    let mut host = self.host.borrow_mut();
                    host.commit();
                    result.outputs = host
                        .outputs
                        .drain(..)
                        .map(|mut e| {
                            e.record = live[e.record];
                            e
                        })
                        .collect();
                    break;
                }
                Outcome::Returned(code::GUEST_RECORD) => {
                    let reason = result
                        .logs
                        .iter()
                        .rev()
                        .find(|l| l.level == Level::Error)
                        .map(|l| l.message.clone());
                    (Failure::Record, reason.unwrap_or_default())
                }
                Outcome::Returned(c) => (Failure::Trap, format!("ws_process returned {}", c)),
                Outcome::Panicked(msg) => {
                    let misuse = self.host.borrow_mut().misuse.take();
                    match misuse {
                        Some(m) => (Failure::Misuse, m),
                        None => (Failure::Trap, msg),
                    }
                }
            };
            self.host.borrow_mut().rollback();
            if failure.0 != Failure::Record {
                self.init().expect("wasmstream::testing: the operator's init failed on a new instance after a trap");
            }
            let pos = current.unwrap_or(0);
            result.dead_letters.push(DeadLetter {
                record: live[pos],
                failure: failure.0,
                reason: failure.1,
            });
            live.remove(pos);
        }
        result
    }

    /// Runs the records `live` of `records` once; returns the outcome and
    /// the position in `live` of the record current at the end.
    fn attempt(&mut self, records: &[TestRecord], live: &[usize]) -> (Outcome, Option<usize>) {
        let headers: Vec<Vec<u8>> = live
            .iter()
            .map(|&i| encode_headers(&records[i].headers))
            .collect();
        let recs: Vec<Record<'_>> = live
            .iter()
            .zip(&headers)
            .map(|(&i, h)| {
                let r = &records[i];
                Record {
                    event_time: r.event_time,
                    input: r.input,
                    key: &r.key,
                    value: &r.value,
                    headers: h,
                }
            })
            .collect();
        let batch = encode_batch(&recs);
        self.host.borrow_mut().begin(
            live.iter()
                .map(|&i| BatchRecord {
                    key: records[i].key.clone(),
                    event_time: records[i].event_time,
                })
                .collect(),
        );
        let mut op = self
            .op
            .take()
            .expect("wasmstream::testing: no operator (init failed)");
        let outcome = match self.guest_call(|| process_batch(&mut op, &batch)) {
            Ok(c) => Outcome::Returned(c),
            Err(msg) => Outcome::Panicked(msg),
        };
        self.op = Some(op);
        (outcome, self.host.borrow().current())
    }

    /// The committed value of state `name` for record key `key`.
    pub fn state(&self, key: impl AsRef<[u8]>, name: impl AsRef<[u8]>) -> Option<Vec<u8>> {
        let host = self.host.borrow();
        host.committed
            .get(key.as_ref())
            .and_then(|st| st.get(name.as_ref()))
            .cloned()
    }

    /// Sets committed state, e.g. to start a test from a checkpoint.
    pub fn set_state(
        &mut self,
        key: impl AsRef<[u8]>,
        name: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
    ) {
        let mut host = self.host.borrow_mut();
        let st = host.committed.entry(key.as_ref().to_vec()).or_default();
        st.insert(name.as_ref().to_vec(), value.as_ref().to_vec());
    }

    /// What the operator's `init` declared (the last `init`, after a trap),
    /// in order of first declaration.
    pub fn declarations(&self) -> Vec<Declaration> {
        self.host.borrow().declarations.clone()
    }

    /// Sets what `processing_time()` returns from now on, Unix nanoseconds:
    /// the clock of processing-time TTLs, which the fake host applies.
    pub fn set_processing_time(&mut self, ns: i64) {
        self.host.borrow_mut().options.processing_time = ns;
    }

    /// Runs the migration the operator's `init` declared for `name`'s state
    /// on one stored value, as the host's `ws_migrate` does during an
    /// upgrade (`name` is the stored name: for a map entry, `map\0key`).
    /// `Ok(None)` deletes the value; `Err` holds the error line the SDK
    /// logged, or a panic's message.
    pub fn migrate(
        &mut self,
        name: impl AsRef<[u8]>,
        from_version: i32,
        old: impl AsRef<[u8]>,
    ) -> Result<Option<Vec<u8>>, String> {
        {
            let mut host = self.host.borrow_mut();
            host.begin(Vec::new());
            host.logs.clear();
        }
        let res = self.guest_call(|| migrate_value(name.as_ref(), from_version, old.as_ref()))?;
        match res {
            r if r >= 0 => Ok(Some(last_migrated())),
            r if r == code::NOT_FOUND as i64 => Ok(None),
            _ => Err(self.last_error_log()),
        }
    }

    /// The operator, e.g. to check what `init` parsed.
    pub fn operator(&self) -> &T {
        self.op.as_ref().expect("wasmstream::testing: no operator")
    }
}

fn encode_headers(headers: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let mut b = Vec::new();
    for (n, v) in headers {
        append_header(&mut b, n, v);
    }
    b
}

#[cfg(test)]
mod tests;
