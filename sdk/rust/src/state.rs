//! Raw state access shared by `ValueState` and `MapState`: the `state_get`
//! retry protocol and bounded, reused buffers. Errors here name no state;
//! the callers add the operation and the name.

use std::cell::RefCell;

use crate::abi::code;
use crate::error::{Error, Result};
use crate::hostcall;

/// The first size of the read buffer: counters and small structs fit, so
/// the common get is one host call.
const INITIAL_READ: usize = 256;

/// The largest buffer kept between calls: a rare huge value is read or
/// written and its buffer dropped, so one outlier does not pin memory.
const MAX_RETAINED: usize = 64 << 10;

thread_local! {
    static READ_BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static ENCODE_BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Reads state `name` of the current key and hands the value to `decode`;
/// `Ok(None)` when there is no value.
pub(crate) fn get<T>(name: &[u8], decode: impl FnOnce(&[u8]) -> Result<T>) -> Result<Option<T>> {
    // Taken out of the cell, not borrowed: a codec may itself read state.
    let mut buf = READ_BUF.with(|b| std::mem::take(&mut *b.borrow_mut()));
    if buf.len() < INITIAL_READ {
        buf.resize(INITIAL_READ, 0);
    }
    let result = read(name, &mut buf).and_then(|n| match n {
        Some(n) => decode(&buf[..n]).map(Some),
        None => Ok(None),
    });
    if buf.len() > MAX_RETAINED {
        buf = Vec::new();
    }
    READ_BUF.with(|b| *b.borrow_mut() = buf);
    result
}

/// The state_get protocol (ABI §6.2): a result over the buffer's size means
/// "found, nothing written, this many bytes needed": grow and ask again.
fn read(name: &[u8], buf: &mut Vec<u8>) -> Result<Option<usize>> {
    loop {
        let n = hostcall::state_get(name, buf);
        if n == code::NOT_FOUND {
            return Ok(None);
        }
        if n < 0 {
            return Err(Error::from_code(n));
        }
        let n = n as usize;
        if n <= buf.len() {
            return Ok(Some(n));
        }
        buf.resize(n, 0);
    }
}

/// Encodes a value with `encode` and stores it under `name` for the current
/// key.
pub(crate) fn put(name: &[u8], encode: impl FnOnce(&mut Vec<u8>)) -> Result<()> {
    let mut buf = ENCODE_BUF.with(|b| std::mem::take(&mut *b.borrow_mut()));
    buf.clear();
    encode(&mut buf);
    let result = check(hostcall::state_put(name, &buf));
    if buf.capacity() > MAX_RETAINED {
        buf = Vec::new();
    }
    ENCODE_BUF.with(|b| *b.borrow_mut() = buf);
    result
}

/// Removes `name` for the current key; a missing value is not an error.
pub(crate) fn delete(name: &[u8]) -> Result<()> {
    check(hostcall::state_delete(name))
}

fn check(c: i32) -> Result<()> {
    if c < 0 {
        return Err(Error::from_code(c));
    }
    Ok(())
}

/// Panics (at compile time when called in a `const` or `static`) unless
/// `name` can be a state name of `max` bytes at most: not empty and no NUL
/// byte, since NUL separates a map's name from its keys.
pub(crate) const fn check_name(name: &str, max: usize) {
    let b = name.as_bytes();
    if b.is_empty() {
        panic!("wasmstream: empty state name");
    }
    if b.len() > max {
        panic!("wasmstream: state name too long (a value state: 1024 bytes at most, a map state: 1023)");
    }
    let mut i = 0;
    while i < b.len() {
        if b[i] == 0 {
            panic!(
                "wasmstream: state name contains a NUL byte, which separates map names from keys"
            );
        }
        i += 1;
    }
}
