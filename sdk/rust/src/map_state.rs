//! A map per key.

use std::marker::PhantomData;

use crate::abi::MAX_STATE_NAME_LEN;
use crate::codec::Codec;
use crate::declare::{declare_state, StateOptions};
use crate::error::{quote, Error, ErrorKind, Result};
use crate::state;

/// A map from byte-string keys to values of type `V`, per record key. The
/// host stores one state entry per map key, named `name + "\0" + map_key`
/// (the convention every wasmstream SDK shares), so entries written by
/// another SDK's operator read back here. The ABI has no scan: a map cannot
/// be listed; keep an index in a [`crate::ValueState`] when you need one.
///
/// ```
/// use wasmstream::MapState;
/// static SEEN: MapState<bool> = MapState::new("seen");
/// ```
pub struct MapState<V: Codec> {
    name: &'static str,
    _value: PhantomData<fn() -> V>,
}

impl<V: Codec> MapState<V> {
    /// The map called `name`: 1 to 1023 bytes, no NUL byte. A bad name
    /// panics, at compile time in a `static` or `const`.
    pub const fn new(name: &'static str) -> MapState<V> {
        state::check_name(name, MAX_STATE_NAME_LEN - 1);
        MapState {
            name,
            _value: PhantomData,
        }
    }

    /// The map's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The longest map key: entry names are 1024 bytes at most, the map's
    /// name and the separator included.
    pub fn max_key_len(&self) -> usize {
        MAX_STATE_NAME_LEN - self.name.len() - 1
    }

    /// Declares the map's version and expiry (see [`declare_state`]): call
    /// it from `Operator::init`. Each entry expires on its own. Returns `self`.
    pub fn declare(&self, options: StateOptions) -> &Self {
        declare_state(self.name, options);
        self
    }

    /// Whether `key` has a value for the current record key, without
    /// decoding it.
    pub fn contains(&self, key: impl AsRef<[u8]>) -> Result<bool> {
        let key = key.as_ref();
        self.with_entry(key, |entry| state::get(entry, |_| Ok(())))
            .map(|found| found.is_some())
            .map_err(|e| self.name_error(e, "map get", key))
    }

    /// The value under `key` for the current record key, `None` when absent.
    pub fn get(&self, key: impl AsRef<[u8]>) -> Result<Option<V>> {
        let key = key.as_ref();
        self.with_entry(key, |entry| state::get(entry, V::decode))
            .map_err(|e| self.name_error(e, "map get", key))
    }

    /// Stores `value` under `key` for the current record key.
    pub fn put(&self, key: impl AsRef<[u8]>, value: &V) -> Result<()> {
        let key = key.as_ref();
        self.with_entry(key, |entry| state::put(entry, |buf| value.encode(buf)))
            .map_err(|e| self.name_error(e, "map put", key))
    }

    /// Removes `key` for the current record key; removing nothing is not an
    /// error.
    pub fn delete(&self, key: impl AsRef<[u8]>) -> Result<()> {
        let key = key.as_ref();
        self.with_entry(key, state::delete)
            .map_err(|e| self.name_error(e, "map delete", key))
    }

    /// Builds the entry name `name \0 key` on the stack and calls `f` with it.
    fn with_entry<R>(&self, key: &[u8], f: impl FnOnce(&[u8]) -> Result<R>) -> Result<R> {
        if key.len() > self.max_key_len() {
            let msg = format!(
                "map key of {} bytes is over the {} bytes this map allows",
                key.len(),
                self.max_key_len()
            );
            return Err(Error::with_kind(ErrorKind::BadArgument, msg));
        }
        let mut entry = [0u8; MAX_STATE_NAME_LEN];
        let n = self.name.len();
        entry[..n].copy_from_slice(self.name.as_bytes());
        entry[n + 1..n + 1 + key.len()].copy_from_slice(key);
        f(&entry[..n + 1 + key.len()])
    }

    /// Prefixes e with the operation and the entry, as `name[key]`.
    fn name_error(&self, e: Error, op: &str, key: &[u8]) -> Error {
        let entry = [self.name.as_bytes(), b"[", key, b"]"].concat();
        e.context(format!("{} {}", op, quote(&entry)))
    }
}
