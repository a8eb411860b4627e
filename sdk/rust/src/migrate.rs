//! State migrations (ABI revision 1.2, `ws_migrate`, abi/ABI.md §4.1): the
//! conversion of values stored under an older version of a state, which the
//! host asks of a new module during an upgrade, before its first record.

use std::cell::RefCell;
use std::fmt;
use std::hash::{Hash, Hasher};

use crate::abi::code;
use crate::declare::migration_of;
use crate::error::{quote, Result};
use crate::log::{log, Level};

/// A migration function: `(stored name, from_version, old value)` to the
/// new value, `None` to delete the value, or an error that fails the upgrade.
pub type MigrateFn = fn(&[u8], i32, &[u8]) -> Result<Option<Vec<u8>>>;

/// The migration of a state, as [`crate::StateOptions::migrate`] sets it.
///
/// A wrapper so that [`crate::StateOptions`] stays comparable and
/// printable: two migrations are equal when they are the same function.
#[derive(Clone, Copy)]
pub struct Migration(pub MigrateFn);

impl PartialEq for Migration {
    fn eq(&self, other: &Migration) -> bool {
        self.0 as usize == other.0 as usize
    }
}

impl Eq for Migration {}

impl Hash for Migration {
    fn hash<H: Hasher>(&self, h: &mut H) {
        (self.0 as usize).hash(h)
    }
}

impl fmt::Debug for Migration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Migration({:#x})", self.0 as usize)
    }
}

thread_local! {
    /// The last migrated value: the host reads it after `ws_migrate`
    /// returned, so it must outlive the call (until the next one).
    static MIGRATED: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Runs the migration declared for `name`'s state on one stored value and
/// returns `ws_migrate`'s result: the new value as `len << 32 | ptr`,
/// `NOT_FOUND` to delete it, or `GUEST_INTERNAL` after an error-level line
/// naming the state (the reason the host shows).
pub(crate) fn migrate_value(name: &[u8], from_version: i32, old: &[u8]) -> i64 {
    let base = base_name(name);
    let migrate = match migration_of(base) {
        Some(m) => m.0,
        None => {
            log(
                Level::Error,
                &format!(
                    "wasmstream: no migration declared for state {} (StateOptions::migrate) but \
                     the host asked to migrate it from version {}",
                    quote(base),
                    from_version
                ),
            );
            return code::GUEST_INTERNAL as i64;
        }
    };
    match migrate(name, from_version, old) {
        Ok(Some(new)) => MIGRATED.with(|m| {
            let mut m = m.borrow_mut();
            *m = new;
            (m.len() as i64) << 32 | m.as_ptr() as u32 as i64
        }),
        Ok(None) => code::NOT_FOUND as i64,
        Err(e) => {
            log(
                Level::Error,
                &format!(
                    "wasmstream: migration of state {} from version {} failed: {}",
                    quote(name),
                    from_version,
                    e
                ),
            );
            code::GUEST_INTERNAL as i64
        }
    }
}

/// The state's name of a stored name: a map entry's is `name 0x00 key`.
fn base_name(name: &[u8]) -> &[u8] {
    match name.iter().position(|&b| b == 0) {
        Some(i) => &name[..i],
        None => name,
    }
}

/// The value the last successful [`migrate_value`] returned, for tests
/// that cannot follow the pointer.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn last_migrated() -> Vec<u8> {
    MIGRATED.with(|m| m.borrow().clone())
}

#[cfg(test)]
mod tests;
