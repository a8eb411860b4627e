//! The declare operator: its `init` declares states in every form the SDK
//! offers, and `process` deduplicates record values with a `Dedup` set.
//!
//! | config | init |
//! |---|---|
//! | empty | declares `total` (v2, never expires), `notes` (v3, 90 s on read and write, return expired, event time), `plain` (nothing about TTL), `seen` (dedup, 1500 ms), with `total` declared twice |
//! | `reject` | declares, then rejects the config |
//! | `zero-ttl` | declares a TTL of 0 ms, which panics |
//!
//! A record whose value is `late` declares from `process`, which panics;
//! any other value is an id: emitted (key and value) the first time per key.

use std::time::Duration;

use wasmstream::{
    declare_state, emit, Dedup, MapState, Operator, Record, Result, StateOptions, Ttl, ValueState,
};

static TOTAL: ValueState<i64> = ValueState::new("total");
static NOTES: MapState<String> = MapState::new("notes");

/// See the crate documentation.
pub struct Declare {
    seen: Dedup,
}

impl Operator for Declare {
    fn init(config: &[u8]) -> Result<Self> {
        TOTAL.declare(StateOptions::new().version(5));
        NOTES.declare(
            StateOptions::new().version(3).ttl(
                Ttl::new(Duration::from_secs(90))
                    .on_read_and_write()
                    .return_expired_if_not_cleaned()
                    .in_event_time(),
            ),
        );
        declare_state("plain", StateOptions::new());
        let seen = Dedup::new("seen", Duration::from_millis(1500));
        // Replaces the first declaration of total, keeping its place.
        TOTAL.declare(StateOptions::new().version(2).no_ttl());
        match config {
            b"reject" => return Err("config rejected on purpose".into()),
            b"zero-ttl" => {
                declare_state("zero", StateOptions::new().ttl(Ttl::new(Duration::ZERO)));
            }
            _ => {}
        }
        Ok(Declare { seen })
    }

    fn process(&mut self, r: &Record<'_>) -> Result<()> {
        if r.value() == b"late" {
            declare_state("late", StateOptions::new());
        }
        if self.seen.is_duplicate(r.value())? {
            return Ok(());
        }
        emit("out", r.key(), r.value())
    }
}

wasmstream::export_operator!(Declare);
