//! The body of the module's exports, shared by the wasm exports and the
//! native test harness: it decodes the batch, moves the host from record to
//! record with `record_next` and maps results to ABI codes.

use crate::abi::code;
use crate::batch::BatchReader;
use crate::declare;
use crate::error::ErrorKind;
use crate::hostcall;
use crate::log::{log, Level};
use crate::operator::Operator;

/// Builds the operator from its config, then hands the state declarations
/// its `init` made to the host. `Err` holds the ABI code for `ws_init`,
/// after the reason was logged at error level.
pub(crate) fn init_operator<T: Operator>(config: &[u8]) -> Result<T, i32> {
    let op = declare::collect(|| T::init(config)).map_err(|e| {
        declare::discard();
        log(
            Level::Error,
            &format!("wasmstream: Operator::init rejected its config: {}", e),
        );
        if e.kind() == ErrorKind::Internal {
            code::GUEST_INTERNAL
        } else {
            code::GUEST_CONFIG
        }
    })?;
    declare::send()?;
    Ok(op)
}

/// Runs `op.process` on each record of `batch` after `record_next` made it
/// current. It stops at the first record that fails, returning
/// `GUEST_RECORD` while that record is still current, so the host isolates
/// exactly it.
pub(crate) fn process_batch<T: Operator>(op: &mut T, batch: &[u8]) -> i32 {
    let mut reader = match BatchReader::new(batch) {
        Ok(r) => r,
        Err(_) => return internal_error("ws_process: malformed batch header"),
    };
    let mut index = 0usize;
    loop {
        let record = match reader.next_record() {
            Ok(Some(r)) => r,
            Ok(None) => return code::OK,
            Err(_) => {
                return internal_error(&format!(
                    "ws_process: malformed record {} in the batch",
                    index
                ))
            }
        };
        if hostcall::record_next() != 1 {
            return internal_error(&format!(
                "ws_process: record_next says the host has no record {} but the batch has it",
                index
            ));
        }
        if let Err(e) = op.process(&record) {
            log(
                Level::Error,
                &format!(
                    "wasmstream: Operator::process failed, the record goes to dead letters: {}",
                    e
                ),
            );
            return code::GUEST_RECORD;
        }
        index += 1;
    }
}

/// Logs a failure of the SDK or of the host protocol.
pub(crate) fn internal_error(msg: &str) -> i32 {
    log(Level::Error, &format!("wasmstream: {}", msg));
    code::GUEST_INTERNAL
}
