//! An in-memory host with the checks and batch semantics of the real one
//! (abi/ABI.md §6 and §7.3), for `cargo test`. It applies the TTLs the
//! operator declares (internal/state/FORMAT.md §3.1, simplified: no config TTLs, no
//! cleanup sweep, no expiry for values written before the declaration).

use std::collections::HashMap;

use crate::abi::{
    code, DECLARE_EVENT_TIME, DECLARE_MIGRATES, DECLARE_READ_AND_WRITE, DECLARE_RETURN_EXPIRED,
    MAX_OUTPUT_NAME_LEN, MAX_STATE_NAME_LEN, TTL_NEVER,
};
use crate::headers::{valid_headers, Headers};
use crate::hostcall::native::Host;
use crate::log::Level;

use super::{Declaration, Emitted, LogLine, Options};

/// The state of one record key: name -> value.
type KeyState = HashMap<Vec<u8>, Vec<u8>>;

/// A record key and a state name.
type Id = (Vec<u8>, Vec<u8>);

/// A pending write of a batch: `None` deletes. The `i64` is the value's
/// expiry, Unix ns, 0 for none.
type Pending = HashMap<Id, Option<(Vec<u8>, i64)>>;

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
    /// Expiries of committed values with a TTL, Unix ns.
    expiry: HashMap<Id, i64>,
    pending: Pending,
    /// What ws_init declared, in order of first declaration.
    pub declarations: Vec<Declaration>,
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
            expiry: HashMap::new(),
            pending: HashMap::new(),
            declarations: Vec::new(),
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
            let id = (key.clone(), name.clone());
            let st = self.committed.entry(key).or_default();
            self.expiry.remove(&id);
            match value {
                Some((v, expiry)) => {
                    st.insert(name, v);
                    if expiry != 0 {
                        self.expiry.insert(id, expiry);
                    }
                }
                None => {
                    st.remove(&name);
                }
            }
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

    /// The declared TTL of a state name (a map entry's is its map's), when
    /// it has one: (ttl in ms, flags).
    fn ttl_of(&self, name: &[u8]) -> Option<(i64, u32)> {
        let base = name.split(|&b| b == 0).next().unwrap_or(name);
        self.declarations
            .iter()
            .find(|d| d.name.as_bytes() == base && d.ttl_ms > 0)
            .map(|d| (d.ttl_ms, d.flags))
    }

    /// Now in the time domain of `flags`: the record's event time, or the
    /// processing clock (also for records without an event time).
    fn now(&self, i: usize, flags: u32) -> i64 {
        let event = self.batch[i].event_time;
        if flags & DECLARE_EVENT_TIME != 0 && event != 0 {
            return event;
        }
        self.options.processing_time
    }

    /// The expiry of a value of `name` written now by record `i`, 0 for none.
    fn expiry_for(&self, i: usize, name: &[u8]) -> i64 {
        match self.ttl_of(name) {
            Some((ms, flags)) => self
                .now(i, flags)
                .saturating_add(ms.saturating_mul(1_000_000)),
            None => 0,
        }
    }

    /// The value of `id` as the batch sees it, with its expiry.
    fn lookup(&self, id: &Id) -> Option<(Vec<u8>, i64)> {
        match self.pending.get(id) {
            Some(v) => v.clone(),
            None => {
                let v = self.committed.get(&id.0).and_then(|st| st.get(&id.1))?;
                Some((v.clone(), self.expiry.get(id).copied().unwrap_or(0)))
            }
        }
    }

    /// Applies the TTL rules of a read to a found value: `None` when it is
    /// expired and must not be returned (the read deletes it); a read of a
    /// live value under `on_read_and_write` moves its expiry.
    fn read_ttl(&mut self, i: usize, id: &Id, value: Vec<u8>, expiry: i64) -> Option<Vec<u8>> {
        let (ms, flags) = match self.ttl_of(&id.1) {
            Some(t) => t,
            None => return Some(value),
        };
        let now = self.now(i, flags);
        if expiry != 0 && expiry <= now {
            if flags & DECLARE_RETURN_EXPIRED != 0 {
                return Some(value);
            }
            self.pending.insert(id.clone(), None);
            return None;
        }
        if flags & DECLARE_READ_AND_WRITE != 0 {
            let moved = expiry.max(now.saturating_add(ms.saturating_mul(1_000_000)));
            self.pending
                .insert(id.clone(), Some((value.clone(), moved)));
        }
        Some(value)
    }

    /// Records a declaration, replacing an earlier one of the same name.
    fn declare(&mut self, d: Declaration) {
        match self.declarations.iter_mut().find(|e| e.name == d.name) {
            Some(e) => *e = d,
            None => self.declarations.push(d),
        }
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
        let id = (self.key(i), name.to_vec());
        let value = match self.lookup(&id) {
            Some((v, expiry)) => self.read_ttl(i, &id, v, expiry),
            None => None,
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
        let expiry = self.expiry_for(i, name);
        self.pending
            .insert((key, name.to_vec()), Some((value.to_vec(), expiry)));
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

    fn state_declare(&mut self, name: &[u8], version: i32, ttl_ms: i64, flags: u32) -> i32 {
        if !self.in_init
            || !Self::name_ok(name)
            || name.contains(&0)
            || version < 1
            || ttl_ms < TTL_NEVER
            || flags
                & !(DECLARE_READ_AND_WRITE
                    | DECLARE_RETURN_EXPIRED
                    | DECLARE_EVENT_TIME
                    | DECLARE_MIGRATES)
                != 0
        {
            return code::BAD_ARGUMENT;
        }
        self.declare(Declaration {
            name: String::from_utf8_lossy(name).into_owned(),
            version,
            ttl_ms,
            flags,
        });
        code::OK
    }
}
