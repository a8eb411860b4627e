//! An in-memory host with the checks and batch semantics of the real one
//! (abi/ABI.md §6 and §7.3), for `cargo test`.

use std::collections::HashMap;

use crate::abi::{code, MAX_OUTPUT_NAME_LEN, MAX_STATE_NAME_LEN};
use crate::headers::{valid_headers, Headers};
use crate::hostcall::native::Host;
use crate::log::Level;

use super::{Emitted, LogLine, Options};

/// The state of one record key: name -> value.
type KeyState = HashMap<Vec<u8>, Vec<u8>>;

/// A pending write of a batch: `None` deletes.
type Pending = HashMap<(Vec<u8>, Vec<u8>), Option<Vec<u8>>>;

/// What the host knows about one record of the running batch.
pub(crate) struct BatchRecord {
    pub key: Vec<u8>,
    pub event_time: i64,
}

/// The fake host. One batch attempt at a time: `begin`, the guest call,
/// then `commit` or `rollback`.
pub(crate) struct FakeHost {
    pub options: Options,
    pub committed: HashMap<Vec<u8>, KeyState>,
    pending: Pending,
    batch: Vec<BatchRecord>,
    /// Records handed out so far by record_next in this attempt.
    pub advanced: usize,
    /// No current record after record_next returned 0.
    exhausted: bool,
    emits_of_current: usize,
    pub outputs: Vec<Emitted>,
    pub logs: Vec<LogLine>,
    /// Set just before a fatal misuse panics, to tell it from a trap.
    pub misuse: Option<String>,
    /// True during ws_init, where record_next is a misuse.
    pub in_init: bool,
}

impl FakeHost {
    pub fn new(options: Options) -> FakeHost {
        FakeHost {
            options,
            committed: HashMap::new(),
            pending: HashMap::new(),
            batch: Vec::new(),
            advanced: 0,
            exhausted: false,
            emits_of_current: 0,
            outputs: Vec::new(),
            logs: Vec::new(),
            misuse: None,
            in_init: false,
        }
    }

    /// Starts an attempt over `batch` (empty for ws_init).
    pub fn begin(&mut self, batch: Vec<BatchRecord>) {
        self.batch = batch;
        self.pending.clear();
        self.advanced = 0;
        self.exhausted = false;
        self.emits_of_current = 0;
        self.outputs.clear();
        self.misuse = None;
    }

    /// The index in the attempt of the current record, if any.
    pub fn current(&self) -> Option<usize> {
        if self.advanced == 0 || self.exhausted {
            return None;
        }
        Some(self.advanced - 1)
    }

    pub fn commit(&mut self) {
        for ((key, name), value) in self.pending.drain() {
            let st = self.committed.entry(key).or_default();
            match value {
                Some(v) => st.insert(name, v),
                None => st.remove(&name),
            };
        }
    }

    pub fn rollback(&mut self) {
        self.pending.clear();
        self.outputs.clear();
    }

    /// Panics as the real host aborts the call on a fatal misuse.
    fn fatal(&mut self, c: i32, func: &str, msg: &str) -> ! {
        let text = format!(
            "guest misused the ABI in {} ({}): {}",
            func,
            code::name(c).unwrap_or("?"),
            msg
        );
        self.misuse = Some(text.clone());
        panic!("{}", text);
    }

    fn require_record(&mut self, func: &str) -> usize {
        match self.current() {
            Some(i) => i,
            None => self.fatal(code::NO_RECORD, func, "no current record"),
        }
    }

    fn key(&self, i: usize) -> Vec<u8> {
        self.batch[i].key.clone()
    }

    fn name_ok(name: &[u8]) -> bool {
        !name.is_empty() && name.len() <= MAX_STATE_NAME_LEN
    }
}

impl Host for FakeHost {
    fn record_next(&mut self) -> i32 {
        if self.in_init {
            self.fatal(code::NO_RECORD, "record_next", "called from ws_init");
        }
        if self.advanced >= self.batch.len() {
            self.exhausted = true;
            return 0;
        }
        self.advanced += 1;
        self.emits_of_current = 0;
        1
    }

    fn state_get(&mut self, name: &[u8], out: &mut [u8]) -> i32 {
        let i = self.require_record("state_get");
        if !Self::name_ok(name) {
            return code::BAD_ARGUMENT;
        }
        let key = self.key(i);
        let value = match self.pending.get(&(key.clone(), name.to_vec())) {
            Some(v) => v.clone(),
            None => self
                .committed
                .get(&key)
                .and_then(|st| st.get(name))
                .cloned(),
        };
        match value {
            None => code::NOT_FOUND,
            Some(v) => {
                if v.len() <= out.len() {
                    out[..v.len()].copy_from_slice(&v);
                }
                v.len() as i32
            }
        }
    }

    fn state_put(&mut self, name: &[u8], value: &[u8]) -> i32 {
        let i = self.require_record("state_put");
        if !Self::name_ok(name) {
            return code::BAD_ARGUMENT;
        }
        if value.len() > self.options.max_value_len {
            return code::TOO_LARGE;
        }
        let key = self.key(i);
        self.pending
            .insert((key, name.to_vec()), Some(value.to_vec()));
        code::OK
    }

    fn state_delete(&mut self, name: &[u8]) -> i32 {
        let i = self.require_record("state_delete");
        if !Self::name_ok(name) {
            return code::BAD_ARGUMENT;
        }
        let key = self.key(i);
        self.pending.insert((key, name.to_vec()), None);
        code::OK
    }

    fn emit(&mut self, output: &[u8], key: &[u8], value: &[u8], headers: &[u8]) -> i32 {
        let i = self.require_record("emit");
        if output.is_empty() || output.len() > MAX_OUTPUT_NAME_LEN {
            return code::BAD_ARGUMENT;
        }
        let output = String::from_utf8_lossy(output).into_owned();
        if !self.options.outputs.contains(&output) {
            return code::UNKNOWN_OUTPUT;
        }
        let max = self.options.max_value_len;
        if key.len() > max || value.len() > max || headers.len() > max {
            return code::TOO_LARGE;
        }
        if !valid_headers(headers) {
            return code::BAD_ARGUMENT;
        }
        if self.emits_of_current >= self.options.max_emits_per_record {
            return code::QUOTA_EXCEEDED;
        }
        self.emits_of_current += 1;
        self.outputs.push(Emitted {
            output,
            key: key.to_vec(),
            value: value.to_vec(),
            headers: Headers::new(headers)
                .map(|(n, v)| (n.to_vec(), v.to_vec()))
                .collect(),
            record: i,
        });
        code::OK
    }

    fn log(&mut self, level: i32, msg: &[u8]) {
        let record = self.current();
        self.logs.push(LogLine {
            level: Level::from_i32(level),
            message: String::from_utf8_lossy(msg).into_owned(),
            record,
        });
    }

    fn event_time(&mut self) -> i64 {
        let i = self.require_record("event_time");
        self.batch[i].event_time
    }

    fn processing_time(&mut self) -> i64 {
        self.options.processing_time
    }
}
