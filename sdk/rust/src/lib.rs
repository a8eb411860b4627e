//! Write [wasmstream](https://github.com/wasmstream/wasmstream) stream
//! operators in Rust.
//!
//! An operator is a type implementing [`Operator`], exported with
//! [`export_operator!`] from a `cdylib` crate built for
//! `wasm32-unknown-unknown`. The host hands it records in batches; inside
//! `process` it reads and writes state scoped to the record's key
//! ([`ValueState`], [`MapState`]), emits records ([`emit()`]), logs
//! ([`log()`], [`info!`]...) and reads the time from the host
//! ([`event_time`], [`processing_time`]). In `init` it may declare a
//! state's version, time to live and migration from older versions
//! ([`declare_state`], [`StateOptions`]) and build a [`Dedup`] set. The
//! crate implements ABI v1 revision 1.2
//! (`abi/ABI.md` in the wasmstream repository) and has no dependencies.
//!
//! ```ignore
//! use wasmstream::{emit, Operator, Record, Result, ValueState};
//!
//! static COUNT: ValueState<i64> = ValueState::new("count");
//!
//! struct Counter;
//!
//! impl Operator for Counter {
//!     fn init(_config: &[u8]) -> Result<Self> {
//!         Ok(Counter)
//!     }
//!     fn process(&mut self, r: &Record<'_>) -> Result<()> {
//!         let n = COUNT.get()?.unwrap_or(0) + 1;
//!         COUNT.put(&n)?;
//!         emit("out", r.key(), n.to_string())
//!     }
//! }
//!
//! wasmstream::export_operator!(Counter);
//! ```
//!
//! Errors: every fallible call returns [`Result`]; an error from `init` is
//! `GUEST_CONFIG`, from `process` `GUEST_RECORD` (the record goes to the
//! dead-letter subject), both logged at error level. A panic traps the
//! instance (build with `panic = "abort"`), after its message is logged.
//!
//! On targets other than wasm32 the host calls go to the in-memory host of
//! the `testing` module, so operators are unit-tested with `cargo test`.

#![warn(missing_docs)]

mod abi;
mod alloc;
mod batch;
mod codec;
mod declare;
mod dedup;
mod driver;
mod emit;
mod error;
mod exports;
pub mod headers;
mod hostcall;
pub mod json;
mod log;
mod map_state;
mod migrate;
mod operator;
mod record;
mod state;
mod time;
mod value_state;

#[cfg(not(target_arch = "wasm32"))]
pub mod testing;

pub use crate::abi::{
    code, ABI_VERSION, DECLARE_EVENT_TIME, DECLARE_MIGRATES, DECLARE_READ_AND_WRITE,
    DECLARE_RETURN_EXPIRED, DEFAULT_MAX_VALUE_LEN, MAX_OUTPUT_NAME_LEN, MAX_STATE_NAME_LEN,
    TTL_NEVER, TTL_UNSET,
};
pub use crate::codec::Codec;
pub use crate::declare::{
    declare_state, Expiry, Migration, StateOptions, TimeDomain, Ttl, TtlUpdate, TtlVisibility,
};
pub use crate::dedup::Dedup;
pub use crate::emit::{emit, emit_raw, emit_with_headers};
pub use crate::error::{quote, Error, ErrorKind, Result};
pub use crate::log::{log, Level};
pub use crate::map_state::MapState;
pub use crate::operator::Operator;
pub use crate::record::Record;
pub use crate::time::{event_time, processing_time};
pub use crate::value_state::ValueState;

/// What [`export_operator!`] expands to. Not part of the API.
#[doc(hidden)]
pub mod __private {
    pub use crate::exports::{ws_alloc, ws_init, ws_migrate, ws_process, Slot};
}
