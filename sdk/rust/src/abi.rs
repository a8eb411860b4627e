//! The numbers of ABI v1 (`abi/ABI.md` in the wasmstream repository): the
//! version, the error-code registry and the limits that are part of the
//! contract. They mirror the Go package `abi` value for value.

/// The ABI version this SDK implements; `ws_abi_version` returns it.
pub const ABI_VERSION: i32 = 1;

/// The longest state name in bytes, map entries included (`name \0 key`).
pub const MAX_STATE_NAME_LEN: usize = 1024;

/// The longest output name in bytes.
pub const MAX_OUTPUT_NAME_LEN: usize = 255;

/// ABI revision 1.1 (`state_declare`, §6.10): `ttl_ms` when the module says
/// nothing about a state's TTL, so that the pipeline config decides.
pub const TTL_UNSET: i64 = 0;

/// ABI revision 1.1: `ttl_ms` of a state that never expires, whatever the
/// pipeline config says.
pub const TTL_NEVER: i64 = -1;

/// `state_declare` flag: reads move the expiry too (`on_read_and_write`).
pub const DECLARE_READ_AND_WRITE: u32 = 1 << 0;

/// `state_declare` flag: an expired value is returned until cleanup removes
/// it (`return_expired_if_not_cleaned`).
pub const DECLARE_RETURN_EXPIRED: u32 = 1 << 1;

/// `state_declare` flag: the TTL counts in the records' event time.
pub const DECLARE_EVENT_TIME: u32 = 1 << 2;

/// `state_declare` flag (ABI 1.2): the module's `ws_migrate` converts the
/// state's values from older versions. The SDK sets it when the
/// declaration has a migration ([`crate::StateOptions::migrate`]).
pub const DECLARE_MIGRATES: u32 = 1 << 3;

/// The host's default limit on a state value and on each emitted key, value
/// and header list (`limits.max_value_bytes` in the pipeline file).
pub const DEFAULT_MAX_VALUE_LEN: usize = 1 << 20;

/// The error-code registry. Host functions return the first group to the
/// guest; the guest returns the second group from `ws_init`/`ws_process`.
/// Codes never change meaning and are never reused.
pub mod code {
    /// Success.
    pub const OK: i32 = 0;
    /// `state_get` found no value for this key and name.
    pub const NOT_FOUND: i32 = -1;
    /// A range lies outside guest memory. Fatal: the host stops the call.
    pub const BAD_POINTER: i32 = -2;
    /// A name length is out of range or a header list is malformed.
    pub const BAD_ARGUMENT: i32 = -3;
    /// A state, emit or event-time call with no current record. Fatal.
    pub const NO_RECORD: i32 = -4;
    /// A length is over `limits.max_value_bytes`.
    pub const TOO_LARGE: i32 = -5;
    /// `emit` named an output the pipeline does not wire.
    pub const UNKNOWN_OUTPUT: i32 = -6;
    /// The current record already emitted `limits.max_emits_per_record` records.
    pub const QUOTA_EXCEEDED: i32 = -7;
    /// A host function was called inside `ws_alloc` or outside a host call. Fatal.
    pub const REENTRANT: i32 = -8;
    /// `ws_init` rejected its config.
    pub const GUEST_CONFIG: i32 = -100;
    /// `ws_process` failed on the current record: the host dead-letters it.
    pub const GUEST_RECORD: i32 = -101;
    /// Any other guest failure.
    pub const GUEST_INTERNAL: i32 = -102;

    /// Returns the registry name of a code, e.g. `"NOT_FOUND"`, or `None`
    /// for a code this SDK does not know.
    pub fn name(code: i32) -> Option<&'static str> {
        Some(match code {
            OK => "OK",
            NOT_FOUND => "NOT_FOUND",
            BAD_POINTER => "BAD_POINTER",
            BAD_ARGUMENT => "BAD_ARGUMENT",
            NO_RECORD => "NO_RECORD",
            TOO_LARGE => "TOO_LARGE",
            UNKNOWN_OUTPUT => "UNKNOWN_OUTPUT",
            QUOTA_EXCEEDED => "QUOTA_EXCEEDED",
            REENTRANT => "REENTRANT",
            GUEST_CONFIG => "GUEST_CONFIG",
            GUEST_RECORD => "GUEST_RECORD",
            GUEST_INTERNAL => "GUEST_INTERNAL",
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::code;

    #[test]
    fn codes_match_the_registry() {
        // Values from abi/codes.go; a change here breaks every deployed guest.
        let want = [
            (code::OK, 0, "OK"),
            (code::NOT_FOUND, -1, "NOT_FOUND"),
            (code::BAD_POINTER, -2, "BAD_POINTER"),
            (code::BAD_ARGUMENT, -3, "BAD_ARGUMENT"),
            (code::NO_RECORD, -4, "NO_RECORD"),
            (code::TOO_LARGE, -5, "TOO_LARGE"),
            (code::UNKNOWN_OUTPUT, -6, "UNKNOWN_OUTPUT"),
            (code::QUOTA_EXCEEDED, -7, "QUOTA_EXCEEDED"),
            (code::REENTRANT, -8, "REENTRANT"),
            (code::GUEST_CONFIG, -100, "GUEST_CONFIG"),
            (code::GUEST_RECORD, -101, "GUEST_RECORD"),
            (code::GUEST_INTERNAL, -102, "GUEST_INTERNAL"),
        ];
        for (c, value, name) in want {
            assert_eq!(c, value, "{}", name);
            assert_eq!(code::name(c), Some(name));
        }
        assert_eq!(code::name(-9), None);
    }
}
