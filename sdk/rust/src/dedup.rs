//! A set of recently seen ids per key, to drop redelivered events.

use std::time::Duration;

use crate::declare::{StateOptions, Ttl};
use crate::error::Result;
use crate::map_state::MapState;

/// Remembers ids per record key for a time, to drop redelivered events.
///
/// It is a map state whose entries are `name + "\0" + id` = `0x01` (the
/// layout every SDK shares), declared with a TTL on create and write, never
/// returning expired entries, in processing time. The TTL must cover the
/// longest time a duplicate can arrive after the original: a redelivery
/// after the TTL is processed again. Build it in `Operator::init`, which
/// declares it, and keep it in the operator:
///
/// ```ignore
/// struct Payments { seen: Dedup }
///
/// impl Operator for Payments {
///     fn init(_config: &[u8]) -> Result<Self> {
///         Ok(Payments { seen: Dedup::new("seen", Duration::from_secs(24 * 3600)) })
///     }
///     fn process(&mut self, r: &Record<'_>) -> Result<()> {
///         if self.seen.is_duplicate(r.header("event-id").unwrap_or_default())? {
///             return Ok(());
///         }
///         emit("out", r.key(), r.value())
///     }
/// }
/// ```
pub struct Dedup {
    seen: MapState<bool>,
}

impl Dedup {
    /// The dedup set called `name` (a map state name: 1 to 1023 bytes, no
    /// NUL byte) whose ids live for `ttl`, at least one millisecond. It
    /// declares the state, so call it from `Operator::init`; it panics
    /// elsewhere, and on a bad name or TTL.
    pub fn new(name: &'static str, ttl: Duration) -> Dedup {
        let seen = MapState::new(name);
        seen.declare(StateOptions::new().ttl(Ttl::new(ttl)));
        Dedup { seen }
    }

    /// The dedup set's state name.
    pub fn name(&self) -> &'static str {
        self.seen.name()
    }

    /// Whether `id` was seen for the current record's key within the TTL.
    /// When it was not, it remembers `id` and returns `false`. The id is
    /// scoped to the key: key the records by the event id to deduplicate
    /// across all keys. An id is at most `1023 - name.len()` bytes.
    pub fn is_duplicate(&self, id: impl AsRef<[u8]>) -> Result<bool> {
        let id = id.as_ref();
        if self.seen.contains(id)? {
            return Ok(true);
        }
        self.seen.put(id, &true)?; // stored as the byte 0x01
        Ok(false)
    }
}

#[cfg(test)]
mod tests;
