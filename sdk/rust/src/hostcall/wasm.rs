//! Host functions as wasm imports of module `wasmstream` (ABI v1, §6;
//! `state_declare` is revision 1.1, §6.10).

/// The raw imports. Pointers and lengths are `i32` in wasm; `usize` and
/// pointers are 32 bits on wasm32, so they pass through unchanged.
mod imports {
    #[link(wasm_import_module = "wasmstream")]
    extern "C" {
        pub fn record_next() -> i32;
        pub fn state_get(
            name_ptr: *const u8,
            name_len: usize,
            out_ptr: *mut u8,
            out_cap: usize,
        ) -> i32;
        pub fn state_put(
            name_ptr: *const u8,
            name_len: usize,
            val_ptr: *const u8,
            val_len: usize,
        ) -> i32;
        pub fn state_delete(name_ptr: *const u8, name_len: usize) -> i32;
        #[allow(clippy::too_many_arguments)]
        pub fn emit(
            out_ptr: *const u8,
            out_len: usize,
            key_ptr: *const u8,
            key_len: usize,
            val_ptr: *const u8,
            val_len: usize,
            hdr_ptr: *const u8,
            hdr_len: usize,
        ) -> i32;
        pub fn log(level: i32, msg_ptr: *const u8, msg_len: usize);
        pub fn event_time() -> i64;
        pub fn processing_time() -> i64;
        pub fn state_declare(
            name_ptr: *const u8,
            name_len: usize,
            version: i32,
            ttl_ms: i64,
            flags: u32,
        ) -> i32;
    }
}

// Safety of every call below: the host only reads or writes inside the
// ranges it is given, and the slices make those ranges valid guest memory.

pub(crate) fn record_next() -> i32 {
    unsafe { imports::record_next() }
}

pub(crate) fn state_get(name: &[u8], out: &mut [u8]) -> i32 {
    unsafe { imports::state_get(name.as_ptr(), name.len(), out.as_mut_ptr(), out.len()) }
}

pub(crate) fn state_put(name: &[u8], value: &[u8]) -> i32 {
    unsafe { imports::state_put(name.as_ptr(), name.len(), value.as_ptr(), value.len()) }
}

pub(crate) fn state_delete(name: &[u8]) -> i32 {
    unsafe { imports::state_delete(name.as_ptr(), name.len()) }
}

pub(crate) fn emit(output: &[u8], key: &[u8], value: &[u8], headers: &[u8]) -> i32 {
    unsafe {
        imports::emit(
            output.as_ptr(),
            output.len(),
            key.as_ptr(),
            key.len(),
            value.as_ptr(),
            value.len(),
            headers.as_ptr(),
            headers.len(),
        )
    }
}

pub(crate) fn log(level: i32, msg: &[u8]) {
    unsafe { imports::log(level, msg.as_ptr(), msg.len()) }
}

pub(crate) fn event_time() -> i64 {
    unsafe { imports::event_time() }
}

pub(crate) fn processing_time() -> i64 {
    unsafe { imports::processing_time() }
}

pub(crate) fn state_declare(name: &[u8], version: i32, ttl_ms: i64, flags: u32) -> i32 {
    unsafe { imports::state_declare(name.as_ptr(), name.len(), version, ttl_ms, flags) }
}
