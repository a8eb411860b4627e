//! Sending records to the operator's outputs.

use std::cell::RefCell;

use crate::error::{quote, Error, Result};
use crate::headers::append_header;
use crate::hostcall;

thread_local! {
    /// The encoded headers of the emit in progress, reused.
    static HEADER_BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The largest header buffer kept between emits.
const MAX_RETAINED: usize = 64 << 10;

/// Emits a record with no headers to `output`, an output name the pipeline
/// file wires for this operator (e.g. `"out"`). The host copies key and
/// value. An empty key publishes no `Wasmstream-Key` header.
///
/// The emit belongs to the record being processed: if `process` then fails
/// for that record, the host discards it. Errors: [`crate::ErrorKind::UnknownOutput`],
/// [`crate::ErrorKind::TooLarge`], [`crate::ErrorKind::QuotaExceeded`],
/// [`crate::ErrorKind::BadArgument`] (an output name of 0 or over 255 bytes).
pub fn emit(output: &str, key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) -> Result<()> {
    emit_raw(output, key.as_ref(), value.as_ref(), &[])
}

/// Emits a record with headers, given as `(name, value)` pairs of strings or
/// bytes; a name may repeat. The engine publishes them as NATS headers.
///
/// ```no_run
/// # fn f(event: &str) -> wasmstream::Result<()> {
/// wasmstream::emit_with_headers("out", "acct-47", "{...}", &[("event-id", event)])?;
/// # Ok(()) }
/// ```
pub fn emit_with_headers<N: AsRef<[u8]>, V: AsRef<[u8]>>(
    output: &str,
    key: impl AsRef<[u8]>,
    value: impl AsRef<[u8]>,
    headers: &[(N, V)],
) -> Result<()> {
    let mut buf = HEADER_BUF.with(|b| std::mem::take(&mut *b.borrow_mut()));
    buf.clear();
    for (name, val) in headers {
        append_header(&mut buf, name.as_ref(), val.as_ref());
    }
    let result = emit_raw(output, key.as_ref(), value.as_ref(), &buf);
    if buf.capacity() > MAX_RETAINED {
        buf = Vec::new();
    }
    HEADER_BUF.with(|b| *b.borrow_mut() = buf);
    result
}

/// Emits a record whose headers are already encoded as an ABI header list
/// (see [`crate::headers::append_header`]); for instance the input record's
/// own `Record::raw_headers()`, forwarded unchanged.
pub fn emit_raw(output: &str, key: &[u8], value: &[u8], headers: &[u8]) -> Result<()> {
    let c = hostcall::emit(output.as_bytes(), key, value, headers);
    if c < 0 {
        return Err(Error::from_code(c).context(format!("emit {}", quote(output.as_bytes()))));
    }
    Ok(())
}
