//! The module's exports: [`export_operator!`](crate::export_operator) and
//! the functions it expands to.

use std::cell::{Cell, UnsafeCell};

use crate::abi::code;
use crate::alloc::{alloc, with_host_bytes};
use crate::driver::{init_operator, internal_error, process_batch};
use crate::hostcall;
use crate::migrate::migrate_value;
use crate::operator::Operator;

/// Defines the four exports of ABI v1 (`ws_abi_version`, `ws_alloc`,
/// `ws_init`, `ws_process`) for an [`Operator`] type, and the optional
/// `ws_migrate` of revision 1.2, which runs the migrations the operator
/// declared ([`crate::StateOptions::migrate`]). Invoke it once, at the
/// top level of a `cdylib` crate built for `wasm32-unknown-unknown`:
///
/// ```ignore
/// struct Counter;
/// impl wasmstream::Operator for Counter { /* init, process */ }
/// wasmstream::export_operator!(Counter);
/// ```
///
/// On other targets it expands to nothing, so the crate still builds and
/// tests natively with `wasmstream::testing`.
#[macro_export]
macro_rules! export_operator {
    ($operator:ty) => {
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            static OPERATOR: $crate::__private::Slot<$operator> = $crate::__private::Slot::new();

            #[no_mangle]
            pub extern "C" fn ws_abi_version() -> i32 {
                $crate::ABI_VERSION
            }

            #[no_mangle]
            pub extern "C" fn ws_alloc(size: i32) -> i32 {
                $crate::__private::ws_alloc(size)
            }

            #[no_mangle]
            pub extern "C" fn ws_init(cfg_ptr: i32, cfg_len: i32) -> i32 {
                $crate::__private::ws_init(&OPERATOR, cfg_ptr, cfg_len)
            }

            #[no_mangle]
            pub extern "C" fn ws_process(batch_ptr: i32, batch_len: i32) -> i32 {
                $crate::__private::ws_process(&OPERATOR, batch_ptr, batch_len)
            }

            #[no_mangle]
            pub extern "C" fn ws_migrate(
                name_ptr: i32,
                name_len: i32,
                from_version: i32,
                val_ptr: i32,
                val_len: i32,
            ) -> i64 {
                $crate::__private::ws_migrate(name_ptr, name_len, from_version, val_ptr, val_len)
            }
        };
    };
}

/// Holds the module's operator between export calls.
///
/// A wasm instance runs one call at a time on one thread, which is what
/// makes the unsynchronised access sound; the macro only defines it on
/// wasm32 without threads.
pub struct Slot<T>(UnsafeCell<Option<T>>);

// Safety: see the type's documentation: only one export call runs at a time.
unsafe impl<T> Sync for Slot<T> {}

impl<T> Slot<T> {
    /// An empty slot.
    pub const fn new() -> Slot<T> {
        Slot(UnsafeCell::new(None))
    }
}

impl<T> Default for Slot<T> {
    fn default() -> Slot<T> {
        Slot::new()
    }
}

thread_local! {
    /// True while ws_init, ws_process or ws_migrate runs: only then may the panic hook
    /// call the host (anywhere else a host call is the fatal REENTRANT).
    static IN_CALL: Cell<bool> = const { Cell::new(false) };
}

/// Marks a host-driven call for the panic hook.
fn in_call<R>(f: impl FnOnce() -> R) -> R {
    IN_CALL.with(|c| c.set(true));
    let r = f();
    IN_CALL.with(|c| c.set(false));
    r
}

/// `ws_alloc(size)`: the host reads `size` as unsigned.
pub fn ws_alloc(size: i32) -> i32 {
    alloc(size as u32 as usize) as i32
}

/// `ws_init(cfg_ptr, cfg_len)`: builds the operator into `slot`.
pub fn ws_init<T: Operator>(slot: &Slot<T>, cfg_ptr: i32, cfg_len: i32) -> i32 {
    install_panic_hook();
    in_call(|| {
        with_host_bytes(cfg_ptr as u32 as usize, cfg_len as u32 as usize, |config| {
            let config = match config {
                Some(c) => c,
                None => {
                    return internal_error(
                        "ws_init: the config lies outside the buffer from ws_alloc",
                    )
                }
            };
            match init_operator::<T>(config) {
                // Safety: one export call at a time (see Slot).
                Ok(op) => unsafe { *slot.0.get() = Some(op) },
                Err(c) => return c,
            }
            code::OK
        })
    })
}

/// `ws_process(batch_ptr, batch_len)`: runs the operator in `slot` on a batch.
pub fn ws_process<T: Operator>(slot: &Slot<T>, batch_ptr: i32, batch_len: i32) -> i32 {
    in_call(|| {
        // Safety: one export call at a time (see Slot).
        let op = match unsafe { (*slot.0.get()).as_mut() } {
            Some(op) => op,
            None => return internal_error("ws_process called before a successful ws_init"),
        };
        with_host_bytes(
            batch_ptr as u32 as usize,
            batch_len as u32 as usize,
            |batch| match batch {
                Some(batch) => process_batch(op, batch),
                None => {
                    internal_error("ws_process: the batch lies outside the buffer from ws_alloc")
                }
            },
        )
    })
}

/// `ws_migrate(name_ptr, name_len, from_version, val_ptr, val_len)`: the
/// name and the value lie one after the other in the buffer from ws_alloc.
pub fn ws_migrate(
    name_ptr: i32,
    name_len: i32,
    from_version: i32,
    val_ptr: i32,
    val_len: i32,
) -> i64 {
    let (name_ptr, name_len) = (name_ptr as u32 as usize, name_len as u32 as usize);
    let (val_ptr, val_len) = (val_ptr as u32 as usize, val_len as u32 as usize);
    in_call(|| {
        let whole = val_ptr.wrapping_sub(name_ptr).wrapping_add(val_len);
        with_host_bytes(name_ptr, whole, |buf| match buf {
            Some(buf) if val_ptr == name_ptr.wrapping_add(name_len) => {
                migrate_value(&buf[..name_len], from_version, &buf[name_len..])
            }
            _ => internal_error(
                "ws_migrate: the name or the value lies outside the buffer from ws_alloc",
            ) as i64,
        })
    })
}

/// Logs a panic's message at error level before the module aborts (built
/// with `panic = "abort"`, a panic is a wasm trap, which the host reports
/// as `ErrTrap` and answers by discarding the instance). Without it the
/// message would be lost: `wasm32-unknown-unknown` has no stderr.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        if IN_CALL.with(|c| c.get()) {
            let msg = format!("wasmstream: panic, the instance traps: {}", info);
            hostcall::log(crate::log::Level::Error as i32, msg.as_bytes());
        }
    }));
}
