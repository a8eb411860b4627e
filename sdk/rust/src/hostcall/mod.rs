//! The one place where the SDK calls the wasmstream host.
//!
//! In a wasm guest every function is a direct import of module
//! `wasmstream`. On every other target the calls go to a `native::Host`
//! that `wasmstream::testing` installs, so that operators can be unit-tested
//! with `cargo test` through the same code paths. The functions take slices
//! and pass them as the ABI's pointer/length pairs; results are raw ABI codes.

#[cfg(target_arch = "wasm32")]
mod wasm;
#[cfg(target_arch = "wasm32")]
pub(crate) use wasm::*;

#[cfg(not(target_arch = "wasm32"))]
pub(crate) mod native;
#[cfg(not(target_arch = "wasm32"))]
pub(crate) use native::{
    emit, event_time, log, processing_time, record_next, state_declare, state_delete, state_get,
    state_put,
};
