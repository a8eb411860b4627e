//! Emits collected in an emit list (ABI.md §5.3, revision 1.3) and handed
//! to the host with one `emit_batch` call per batch, or when the list is
//! full, instead of one `emit` call each. So that an operator gets at once
//! what `emit` would have returned, output names are resolved with
//! `output_index` (once per name and instance) and the limits of
//! `emit_limits` are checked here, in `emit`'s order (§6.5).
//!
//! Only in a wasm guest: off wasm, emits go to the test harness's `emit`,
//! which checks the same things.

use std::cell::RefCell;

use crate::abi::{code, MAX_OUTPUT_NAME_LEN};
use crate::headers::valid_headers;

/// Flush the list when it grows past this many bytes.
const FLUSH_AT: usize = 64 << 10;

/// A list that grew past this is dropped after its flush.
const MAX_RETAINED: usize = 4 << 20;

struct List {
    buf: Vec<u8>,
    record: Option<u32>, // batch index of the current record; None: emit directly
    emits: u32,          // emits of the current record
    max_emits: u32,
    max_value: u32,
    outputs: Vec<(Vec<u8>, u32)>, // output names resolved so far, with their index
    refused: i32,                 // a code the host refused a list of this batch with
}

thread_local! {
    static LIST: RefCell<List> = const {
        RefCell::new(List {
            buf: Vec::new(),
            record: None,
            emits: 0,
            max_emits: 0,
            max_value: 0,
            outputs: Vec::new(),
            refused: 0,
        })
    };
}

fn with<R>(f: impl FnOnce(&mut List) -> R) -> R {
    LIST.with(|l| f(&mut l.borrow_mut()))
}

/// Reads the instance's limits; at the end of a successful `ws_init`.
pub(crate) fn start_instance() {
    if !cfg!(target_arch = "wasm32") {
        return;
    }
    let limits = host::emit_limits() as u64;
    with(|l| {
        l.max_value = limits as u32;
        l.max_emits = (limits >> 32) as u32;
        l.outputs.clear();
    });
}

/// Starts a batch with an empty list.
pub(crate) fn start_batch() {
    with(|l| {
        l.buf.clear();
        l.record = None;
        l.refused = 0;
    });
}

/// Record `index` of the batch is current: its emits go to the list.
pub(crate) fn start_record(index: u32) {
    if !cfg!(target_arch = "wasm32") {
        return;
    }
    with(|l| {
        l.record = Some(index);
        l.emits = 0;
    });
}

/// The batch fails: its emits are discarded anyway.
pub(crate) fn discard() {
    start_batch();
}

/// Hands the rest of the list over at the end of a batch; the code the host
/// refused a list of the batch with, or 0.
pub(crate) fn finish_batch() -> i32 {
    with(|l| {
        l.record = None;
        flush(l);
        l.refused
    })
}

fn flush(l: &mut List) {
    if l.buf.is_empty() {
        return;
    }
    let c = host::emit_batch(&l.buf);
    if c < 0 && l.refused == 0 {
        l.refused = c;
    }
    l.buf.clear();
    if l.buf.capacity() > MAX_RETAINED {
        l.buf = Vec::new();
    }
}

/// Collects one emit while a record is current: `Some` with the code `emit`
/// would have returned; `None` when the emit must go to the host directly.
pub(crate) fn emit(output: &[u8], key: &[u8], value: &[u8], headers: &[u8]) -> Option<i32> {
    with(|l| {
        let record = l.record?;
        Some(collect(l, record, output, key, value, headers))
    })
}

fn collect(l: &mut List, record: u32, output: &[u8], key: &[u8], value: &[u8], headers: &[u8]) -> i32 {
    if output.is_empty() || output.len() > MAX_OUTPUT_NAME_LEN {
        return code::BAD_ARGUMENT;
    }
    let index = match output_index(l, output) {
        Ok(i) => i,
        Err(c) => return c,
    };
    let max = l.max_value as usize;
    if key.len() > max || value.len() > max || headers.len() > max {
        return code::TOO_LARGE;
    }
    if !valid_headers(headers) {
        return code::BAD_ARGUMENT;
    }
    if l.emits >= l.max_emits {
        return code::QUOTA_EXCEEDED;
    }
    l.emits += 1;
    l.buf.extend_from_slice(&record.to_le_bytes());
    l.buf.extend_from_slice(&index.to_le_bytes());
    for field in [key, value, headers] {
        l.buf.extend_from_slice(&(field.len() as u32).to_le_bytes());
        l.buf.extend_from_slice(field);
    }
    if l.buf.len() >= FLUSH_AT {
        flush(l);
    }
    code::OK
}

fn output_index(l: &mut List, output: &[u8]) -> Result<u32, i32> {
    if let Some((_, i)) = l.outputs.iter().find(|(name, _)| name.as_slice() == output) {
        return Ok(*i);
    }
    let c = host::output_index(output);
    if c < 0 {
        return Err(c);
    }
    l.outputs.push((output.to_vec(), c as u32));
    Ok(c as u32)
}

#[cfg(target_arch = "wasm32")]
use crate::hostcall as host;

/// Off wasm nothing is collected, so these are never called.
#[cfg(not(target_arch = "wasm32"))]
mod host {
    pub(crate) fn emit_limits() -> i64 {
        unreachable!("emit lists are wasm-only")
    }
    pub(crate) fn emit_batch(_: &[u8]) -> i32 {
        unreachable!("emit lists are wasm-only")
    }
    pub(crate) fn output_index(_: &[u8]) -> i32 {
        unreachable!("emit lists are wasm-only")
    }
}
