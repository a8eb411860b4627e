//! Logging to the host's log.

use crate::hostcall;

/// The severity of a log line; the values are the ABI's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// 0
    Trace = 0,
    /// 1
    Debug = 1,
    /// 2
    Info = 2,
    /// 3
    Warn = 3,
    /// 4
    Error = 4,
}

impl Level {
    /// The level of an ABI value; the host logs unknown values at error.
    pub fn from_i32(level: i32) -> Level {
        match level {
            0 => Level::Trace,
            1 => Level::Debug,
            2 => Level::Info,
            3 => Level::Warn,
            _ => Level::Error,
        }
    }

    /// `"trace"`, `"debug"`, `"info"`, `"warn"` or `"error"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Trace => "trace",
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
        }
    }
}

/// Writes one line to the host's log, tagged `guest=true` and with the
/// index of the current record. The host keeps 1000 lines per batch call
/// and cuts lines at 4096 bytes. Allowed in `init` and `process`.
pub fn log(level: Level, msg: &str) {
    hostcall::log(level as i32, msg.as_bytes());
}

/// Logs a `format!` message at [`Level::Trace`].
#[macro_export]
macro_rules! trace {
    ($($arg:tt)*) => { $crate::log($crate::Level::Trace, &::std::format!($($arg)*)) };
}

/// Logs a `format!` message at [`Level::Debug`].
#[macro_export]
macro_rules! debug {
    ($($arg:tt)*) => { $crate::log($crate::Level::Debug, &::std::format!($($arg)*)) };
}

/// Logs a `format!` message at [`Level::Info`].
#[macro_export]
macro_rules! info {
    ($($arg:tt)*) => { $crate::log($crate::Level::Info, &::std::format!($($arg)*)) };
}

/// Logs a `format!` message at [`Level::Warn`].
#[macro_export]
macro_rules! warn {
    ($($arg:tt)*) => { $crate::log($crate::Level::Warn, &::std::format!($($arg)*)) };
}

/// Logs a `format!` message at [`Level::Error`].
#[macro_export]
macro_rules! error {
    ($($arg:tt)*) => { $crate::log($crate::Level::Error, &::std::format!($($arg)*)) };
}

#[cfg(test)]
mod tests {
    use super::Level;

    #[test]
    fn levels_are_the_abi_values() {
        for (l, v, s) in [
            (Level::Trace, 0, "trace"),
            (Level::Debug, 1, "debug"),
            (Level::Info, 2, "info"),
            (Level::Warn, 3, "warn"),
            (Level::Error, 4, "error"),
        ] {
            assert_eq!(l as i32, v);
            assert_eq!(Level::from_i32(v), l);
            assert_eq!(l.as_str(), s);
        }
        assert_eq!(Level::from_i32(-1), Level::Error);
        assert_eq!(Level::from_i32(99), Level::Error);
    }
}
