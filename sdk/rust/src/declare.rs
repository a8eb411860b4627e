//! State declarations (ABI revision 1.1, `state_declare`, abi/ABI.md §6.10):
//! what the host needs to know about a named state, its version and its time
//! to live. The operator declares in `Operator::init`; the SDK hands the
//! declarations to the host once `init` returned `Ok`, still inside
//! `ws_init` (the only place the host accepts them).

use std::cell::{Cell, RefCell};
use std::time::Duration;

use crate::abi::{
    code, DECLARE_EVENT_TIME, DECLARE_MIGRATES, DECLARE_READ_AND_WRITE, DECLARE_RETURN_EXPIRED,
    MAX_STATE_NAME_LEN, TTL_NEVER, TTL_UNSET,
};
use crate::error::{quote, Error};
use crate::hostcall;
use crate::log::{log, Level};
pub use crate::migrate::Migration;
use crate::state::check_name;

/// Which accesses move a value's expiry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TtlUpdate {
    /// The expiry is set when the value is written. The default.
    #[default]
    OnCreateAndWrite,
    /// Reads move the expiry too, so a value in use stays.
    OnReadAndWrite,
}

/// Whether an expired value can still be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TtlVisibility {
    /// An expired value reads as absent. The default.
    #[default]
    NeverReturnExpired,
    /// An expired value is returned until the host's cleanup removes it:
    /// cheaper for the host; use it only when a stale value is harmless.
    ReturnExpiredIfNotCleaned,
}

/// The clock a TTL counts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TimeDomain {
    /// The host's clock when the record is processed. The default.
    #[default]
    ProcessingTime,
    /// The records' event time. A redelivered duplicate carries its original
    /// event time, so an event-time TTL measures the data, not an outage.
    EventTime,
}

/// A state's time to live.
///
/// ```
/// use std::time::Duration;
/// use wasmstream::{TimeDomain, Ttl};
/// const SESSION: Ttl = Ttl::new(Duration::from_secs(30 * 60)).on_read_and_write();
/// assert_eq!(SESSION.time_domain, TimeDomain::ProcessingTime);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ttl {
    /// How long a value lives after its last update: at least one
    /// millisecond (the ABI counts whole milliseconds; the rest is dropped).
    pub duration: Duration,
    /// Which accesses move the expiry.
    pub update: TtlUpdate,
    /// Whether an expired value can still be read.
    pub visibility: TtlVisibility,
    /// The clock the duration counts on.
    pub time_domain: TimeDomain,
}

impl Ttl {
    /// A TTL of `duration`, moved on create and write, never returning
    /// expired values, in processing time.
    pub const fn new(duration: Duration) -> Ttl {
        Ttl {
            duration,
            update: TtlUpdate::OnCreateAndWrite,
            visibility: TtlVisibility::NeverReturnExpired,
            time_domain: TimeDomain::ProcessingTime,
        }
    }

    /// Makes reads move the expiry too ([`TtlUpdate::OnReadAndWrite`]).
    pub const fn on_read_and_write(self) -> Ttl {
        Ttl {
            update: TtlUpdate::OnReadAndWrite,
            ..self
        }
    }

    /// Returns expired values until cleanup removes them
    /// ([`TtlVisibility::ReturnExpiredIfNotCleaned`]).
    pub const fn return_expired_if_not_cleaned(self) -> Ttl {
        Ttl {
            visibility: TtlVisibility::ReturnExpiredIfNotCleaned,
            ..self
        }
    }

    /// Counts the duration in the records' event time ([`TimeDomain::EventTime`]).
    pub const fn in_event_time(self) -> Ttl {
        Ttl {
            time_domain: TimeDomain::EventTime,
            ..self
        }
    }

    /// `state_declare`'s `ttl_ms` and `flags`; panics under one millisecond.
    fn abi_args(&self, name: &str) -> (i64, u32) {
        let ms = self.duration.as_millis();
        if ms < 1 {
            panic!(
                "wasmstream: declare state {}: a TTL of {} ns is under one millisecond",
                quote(name.as_bytes()),
                self.duration.as_nanos()
            );
        }
        let mut flags = 0;
        if self.update == TtlUpdate::OnReadAndWrite {
            flags |= DECLARE_READ_AND_WRITE;
        }
        if self.visibility == TtlVisibility::ReturnExpiredIfNotCleaned {
            flags |= DECLARE_RETURN_EXPIRED;
        }
        if self.time_domain == TimeDomain::EventTime {
            flags |= DECLARE_EVENT_TIME;
        }
        (i64::try_from(ms).unwrap_or(i64::MAX), flags)
    }
}

/// What a module says about a state's expiry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Expiry {
    /// Nothing: the pipeline config's TTL of the state applies, if any. The default.
    #[default]
    FromConfig,
    /// Never expires, even when the pipeline config gives the state a TTL.
    Never,
    /// Expires as the TTL says, overriding the pipeline config's TTL.
    After(Ttl),
}

/// What a module declares about one named state.
///
/// ```
/// use std::time::Duration;
/// use wasmstream::{StateOptions, Ttl};
/// const SEEN: StateOptions = StateOptions::new().version(2).ttl(Ttl::new(Duration::from_secs(3600)));
/// const TOTAL: StateOptions = StateOptions::new().no_ttl();
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct StateOptions {
    /// The layout version of the state's values; 0 means 1. Bump it when
    /// the encoding changes: an upgrade then needs a migration.
    pub version: i32,
    /// The state's expiry.
    pub expiry: Expiry,
    /// Converts values stored under an older version (ABI 1.2,
    /// `ws_migrate`); see [`StateOptions::migrate`].
    pub migration: Option<Migration>,
}

impl StateOptions {
    /// Version 1, expiry from the pipeline config.
    pub const fn new() -> StateOptions {
        StateOptions {
            version: 0,
            expiry: Expiry::FromConfig,
            migration: None,
        }
    }

    /// Sets the migration (ABI 1.2): when a module replaces one that wrote
    /// this state under an older version (an upgrade), the host calls
    /// `migrate(name, from_version, old)` once per stored value before the
    /// first record. `name` is the stored name (for a map entry, the map's
    /// name, a zero byte and the entry's key). Return `Ok(Some(new))` to
    /// store the new encoding, `Ok(None)` to delete the value; an `Err`
    /// fails the upgrade, which then writes nothing and leaves the old
    /// module running. Without a migration, raising the version makes the
    /// host refuse the upgrade before anything is touched.
    ///
    /// ```
    /// use wasmstream::{Result, StateOptions};
    /// fn to_v2(_name: &[u8], _from: i32, old: &[u8]) -> Result<Option<Vec<u8>>> {
    ///     Ok(Some([b"v2:", old].concat()))
    /// }
    /// const TOTAL: StateOptions = StateOptions::new().version(2).migrate(to_v2);
    /// ```
    pub const fn migrate(self, migrate: crate::migrate::MigrateFn) -> StateOptions {
        StateOptions {
            migration: Some(Migration(migrate)),
            ..self
        }
    }

    /// Sets the version (1 or more).
    pub const fn version(self, version: i32) -> StateOptions {
        StateOptions { version, ..self }
    }

    /// Sets the TTL ([`Expiry::After`]).
    pub const fn ttl(self, ttl: Ttl) -> StateOptions {
        StateOptions {
            expiry: Expiry::After(ttl),
            ..self
        }
    }

    /// Makes the state never expire ([`Expiry::Never`]).
    pub const fn no_ttl(self) -> StateOptions {
        StateOptions {
            expiry: Expiry::Never,
            ..self
        }
    }
}

/// One pending `state_declare` call.
struct Declaration {
    name: String,
    version: i32,
    ttl_ms: i64,
    flags: u32,
    migration: Option<Migration>,
}

thread_local! {
    /// The declarations of the running `init`, in declaration order.
    static PENDING: RefCell<Vec<Declaration>> = const { RefCell::new(Vec::new()) };
    /// True while `Operator::init` runs: the only time declarations are taken.
    static OPEN: Cell<bool> = const { Cell::new(false) };
    /// The declarations the host accepted, for `ws_migrate`.
    static SENT: RefCell<Vec<Declaration>> = const { RefCell::new(Vec::new()) };
}

/// Declares the version and expiry of the state called `name` (for a
/// [`crate::MapState`], the map's name: each entry expires on its own).
/// Call it from `Operator::init`: the SDK hands the declarations to the
/// host when `init` returns `Ok`. A later declaration of the same name
/// replaces the earlier one.
///
/// Panics, as programming errors, on an invalid name, a negative version, a
/// TTL under one millisecond, or a call outside `Operator::init` (the host
/// takes declarations only before the first record).
pub fn declare_state(name: &str, options: StateOptions) {
    check_name(name, MAX_STATE_NAME_LEN);
    if !OPEN.with(|o| o.get()) {
        panic!(
            "wasmstream: declare state {} outside Operator::init: the host takes declarations only \
             while the operator is built; declare in init",
            quote(name.as_bytes())
        );
    }
    let d = declaration(name, options);
    PENDING.with(|p| {
        let mut p = p.borrow_mut();
        match p.iter_mut().find(|e| e.name == d.name) {
            Some(e) => *e = d,
            None => p.push(d),
        }
    });
}

/// Turns options into `state_declare`'s arguments.
fn declaration(name: &str, options: StateOptions) -> Declaration {
    if options.version < 0 {
        panic!(
            "wasmstream: declare state {}: negative version {}",
            quote(name.as_bytes()),
            options.version
        );
    }
    let (ttl_ms, mut flags) = match options.expiry {
        Expiry::FromConfig => (TTL_UNSET, 0),
        Expiry::Never => (TTL_NEVER, 0),
        Expiry::After(ttl) => ttl.abi_args(name),
    };
    if options.migration.is_some() {
        flags |= DECLARE_MIGRATES;
    }
    Declaration {
        name: name.to_string(),
        version: options.version.max(1),
        ttl_ms,
        flags,
        migration: options.migration,
    }
}

/// Closes the declaration window when dropped, also when `init` panics.
struct Window;

impl Drop for Window {
    fn drop(&mut self) {
        OPEN.with(|o| o.set(false));
    }
}

/// Runs `init` with declarations open; they stay pending for [`send`].
pub(crate) fn collect<R>(init: impl FnOnce() -> R) -> R {
    PENDING.with(|p| p.borrow_mut().clear());
    OPEN.with(|o| o.set(true));
    let _window = Window;
    init()
}

/// Forgets the pending declarations (`init` failed).
pub(crate) fn discard() {
    PENDING.with(|p| p.borrow_mut().clear());
}

/// Hands every pending declaration to the host. `Err` holds the code for
/// `ws_init`, `GUEST_INTERNAL`, after an error line naming the state.
pub(crate) fn send() -> Result<(), i32> {
    let pending = PENDING.with(|p| std::mem::take(&mut *p.borrow_mut()));
    for d in &pending {
        let c = hostcall::state_declare(d.name.as_bytes(), d.version, d.ttl_ms, d.flags);
        if c != code::OK {
            let msg = format!(
                "wasmstream: the host refused the declaration of state {} (version {}, ttl_ms {}, \
                 flags {}): {}",
                quote(d.name.as_bytes()),
                d.version,
                d.ttl_ms,
                d.flags,
                Error::from_code(c)
            );
            log(Level::Error, &msg);
            return Err(code::GUEST_INTERNAL);
        }
    }
    SENT.with(|s| *s.borrow_mut() = pending);
    Ok(())
}

/// The migration declared for the state called `name` (the base name,
/// without a map entry's key), if the host accepted its declaration.
pub(crate) fn migration_of(name: &[u8]) -> Option<Migration> {
    SENT.with(|s| {
        s.borrow()
            .iter()
            .find(|d| d.name.as_bytes() == name)
            .and_then(|d| d.migration)
    })
}

#[cfg(test)]
mod tests;
