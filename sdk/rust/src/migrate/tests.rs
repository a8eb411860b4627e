//! Migrations: the declaration's flag, which function runs for a stored
//! name, and how a result becomes `ws_migrate`'s.

use super::*;
use crate::abi::DECLARE_MIGRATES;
use crate::testing::{Harness, Options};
use crate::{Error, MapState, Operator, Record, StateOptions, ValueState};

static TOTAL: ValueState<i64> = ValueState::new("total");
static LIMITS: MapState<i64> = MapState::new("limits");

/// v1 stored `total` as decimal text; v2 stores it as `{"total":N}`.
/// Zero is deleted, anything but a decimal integer fails.
fn total_to_v2(_name: &[u8], from: i32, old: &[u8]) -> Result<Option<Vec<u8>>> {
    if from != 1 {
        return Err(Error::new(format!("no migration from version {}", from)));
    }
    let n: i64 = std::str::from_utf8(old)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| Error::new("the stored total is not a decimal integer"))?;
    if n == 0 {
        return Ok(None);
    }
    Ok(Some(format!("{{\"total\":{}}}", n).into_bytes()))
}

/// Echoes the stored name, so a test sees which name reached the function.
fn name_of(name: &[u8], _from: i32, _old: &[u8]) -> Result<Option<Vec<u8>>> {
    Ok(Some(name.to_vec()))
}

struct Upgraded;

impl Operator for Upgraded {
    fn init(_config: &[u8]) -> Result<Self> {
        TOTAL.declare(StateOptions::new().version(2).migrate(total_to_v2));
        LIMITS.declare(StateOptions::new().version(3).migrate(name_of));
        crate::declare_state("plain", StateOptions::new().version(2));
        Ok(Upgraded)
    }
    fn process(&mut self, _: &Record<'_>) -> Result<()> {
        Ok(())
    }
}

fn harness() -> Harness<Upgraded> {
    Harness::new(Options::default()).unwrap()
}

#[test]
fn a_migration_sets_the_migrates_flag() {
    let flags: Vec<(String, i32, u32)> = harness()
        .declarations()
        .into_iter()
        .map(|d| (d.name, d.version, d.flags))
        .collect();
    assert_eq!(
        flags,
        [
            ("total".to_string(), 2, DECLARE_MIGRATES),
            ("limits".to_string(), 3, DECLARE_MIGRATES),
            ("plain".to_string(), 2, 0),
        ]
    );
}

#[test]
fn converts_deletes_and_fails_naming_the_state() {
    let mut h = harness();
    assert_eq!(
        h.migrate("total", 1, "42"),
        Ok(Some(b"{\"total\":42}".to_vec()))
    );
    assert_eq!(h.migrate("total", 1, "0"), Ok(None), "zero is deleted");
    let err = h.migrate("total", 1, "x").unwrap_err();
    assert!(
        err.contains("migration of state \"total\" from version 1 failed")
            && err.contains("not a decimal integer"),
        "{}",
        err
    );
    let err = h.migrate("total", 5, "1").unwrap_err();
    assert!(err.contains("from version 5"), "{}", err);
}

#[test]
fn a_map_entry_runs_the_map_migration_with_its_stored_name() {
    let mut h = harness();
    assert_eq!(
        h.migrate("limits\0acct-1", 2, "7"),
        Ok(Some(b"limits\0acct-1".to_vec()))
    );
}

#[test]
fn a_state_without_a_migration_fails_naming_it() {
    let mut h = harness();
    let err = h.migrate("plain", 1, "v").unwrap_err();
    assert!(
        err.contains("no migration declared for state \"plain\""),
        "{}",
        err
    );
    let err = h.migrate("other\0k", 1, "v").unwrap_err();
    assert!(err.contains("state \"other\""), "{}", err);
}

#[test]
fn the_result_is_length_and_address_of_the_kept_value() {
    let mut h = harness();
    let _ = h.migrate("total", 1, "1"); // declarations are sent by init
    let r = migrate_value(b"total", 1, b"123");
    let kept = last_migrated();
    assert_eq!(kept, b"{\"total\":123}");
    assert_eq!(r >> 32, kept.len() as i64);
    assert_eq!(
        r & 0xffff_ffff,
        MIGRATED.with(|m| m.borrow().as_ptr() as u32 as i64)
    );
    assert_eq!(migrate_value(b"total", 1, b"0"), code::NOT_FOUND as i64);
}

#[test]
fn migrations_compare_by_function() {
    let a = StateOptions::new().migrate(total_to_v2);
    assert_eq!(a, StateOptions::new().migrate(total_to_v2));
    assert_ne!(a, StateOptions::new().migrate(name_of));
    assert_ne!(a, StateOptions::new());
}
