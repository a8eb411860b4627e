//! Time from the host: a guest has no clock of its own.

use crate::hostcall;

/// The event time of the record being processed, Unix nanoseconds (the same
/// as `Record::event_time`). Replays see the same value.
pub fn event_time() -> i64 {
    hostcall::event_time()
}

/// The host's clock when the current `init` or batch call started, Unix
/// nanoseconds: every call within one batch returns the same value. A
/// replay sees the clock of the replay, so logic that must replay
/// identically uses [`event_time`].
pub fn processing_time() -> i64 {
    hostcall::processing_time()
}
