//! Pass-through guest of the yardstick benchmark: every record is emitted
//! unchanged to output "out", with no state.

use wasmstream::{emit, Operator, Record, Result};

/// Forwards every record.
pub struct Passthrough;

impl Operator for Passthrough {
    fn init(_config: &[u8]) -> Result<Self> {
        Ok(Passthrough)
    }

    fn process(&mut self, record: &Record<'_>) -> Result<()> {
        emit("out", record.key(), record.value())
    }
}

wasmstream::export_operator!(Passthrough);
