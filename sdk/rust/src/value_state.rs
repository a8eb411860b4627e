//! One value per key.

use std::marker::PhantomData;

use crate::abi::MAX_STATE_NAME_LEN;
use crate::codec::Codec;
use crate::declare::{declare_state, StateOptions};
use crate::error::{quote, Result};
use crate::state;

/// One value of type `T` per key, stored by the host under a name. Every
/// call addresses the key of the record being processed, so a `ValueState`
/// is declared once, usually as a `static`, and used from `process`:
///
/// ```
/// use wasmstream::ValueState;
/// static TOTAL: ValueState<i64> = ValueState::new("total");
/// ```
pub struct ValueState<T: Codec> {
    name: &'static str,
    _value: PhantomData<fn() -> T>,
}

impl<T: Codec> ValueState<T> {
    /// The state called `name`: 1 to 1024 bytes, no NUL byte. A bad name
    /// panics, at compile time in a `static` or `const`.
    pub const fn new(name: &'static str) -> ValueState<T> {
        state::check_name(name, MAX_STATE_NAME_LEN);
        ValueState {
            name,
            _value: PhantomData,
        }
    }

    /// The state's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Declares the state's version and expiry (see [`declare_state`]):
    /// call it from `Operator::init`. Returns `self`.
    ///
    /// ```ignore
    /// static TOTAL: ValueState<i64> = ValueState::new("total");
    /// // in init:
    /// TOTAL.declare(StateOptions::new().version(2).no_ttl());
    /// ```
    pub fn declare(&self, options: StateOptions) -> &Self {
        declare_state(self.name, options);
        self
    }

    /// The value for the current key, `None` when there is none.
    pub fn get(&self) -> Result<Option<T>> {
        state::get(self.name.as_bytes(), T::decode)
            .map_err(|e| e.context(self.describe("state get")))
    }

    /// Stores `value` for the current key.
    pub fn put(&self, value: &T) -> Result<()> {
        state::put(self.name.as_bytes(), |buf| value.encode(buf))
            .map_err(|e| e.context(self.describe("state put")))
    }

    /// Removes the value of the current key; removing nothing is not an error.
    pub fn delete(&self) -> Result<()> {
        state::delete(self.name.as_bytes()).map_err(|e| e.context(self.describe("state delete")))
    }

    fn describe(&self, op: &str) -> String {
        format!("{} {}", op, quote(self.name.as_bytes()))
    }
}
