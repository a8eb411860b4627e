//! The user's side of a module.

use crate::error::Result;
use crate::record::Record;

/// The code of a wasmstream operator. A module has exactly one, exported
/// with [`crate::export_operator!`].
///
/// The host builds the operator once per instance with `init`, then calls
/// `process` for every record, one at a time, never concurrently. It
/// discards the instance after a trap (a panic) and builds a new one.
pub trait Operator: Sized + 'static {
    /// Builds the operator from its config bytes (the `config` of the
    /// pipeline file; empty when there is none). The bytes are only
    /// borrowed: copy what you keep. An error fails the instance with
    /// `GUEST_CONFIG` (`GUEST_INTERNAL` for [`crate::ErrorKind::Internal`])
    /// and is logged at error level.
    fn init(config: &[u8]) -> Result<Self>;

    /// Handles one record. State and emit calls inside it address the
    /// record's key. An error is logged at error level and sends the record
    /// to the dead-letter subject (`GUEST_RECORD`): the host drops the state
    /// writes and emits of the failed attempt and runs the batch's other
    /// records again without it, so `process` must keep its effects in host
    /// state, not in `self`, for anything that must survive that replay.
    fn process(&mut self, record: &Record<'_>) -> Result<()>;
}
