//! Host functions off wasm: routed to the [`Host`] installed on this thread
//! by `wasmstream::testing`. Each test thread has its own, so tests run in
//! parallel without mixing their calls.

use std::cell::RefCell;
use std::rc::Rc;

/// The host functions of ABI v1 (§6), with slices for pointer/length pairs.
/// A fatal misuse (NO_RECORD, REENTRANT...) panics, as the real host stops
/// the guest call.
pub(crate) trait Host {
    fn record_next(&mut self) -> i32;
    fn state_get(&mut self, name: &[u8], out: &mut [u8]) -> i32;
    fn state_put(&mut self, name: &[u8], value: &[u8]) -> i32;
    fn state_delete(&mut self, name: &[u8]) -> i32;
    fn emit(&mut self, output: &[u8], key: &[u8], value: &[u8], headers: &[u8]) -> i32;
    fn log(&mut self, level: i32, msg: &[u8]);
    fn event_time(&mut self) -> i64;
    fn processing_time(&mut self) -> i64;
    fn state_declare(&mut self, name: &[u8], version: i32, ttl_ms: i64, flags: u32) -> i32;
}

thread_local! {
    static HOST: RefCell<Option<Rc<RefCell<dyn Host>>>> = RefCell::new(None);
}

const NO_HOST: &str = "wasmstream: no host is installed: this code runs only inside a wasm guest \
                       or inside a wasmstream::testing::Harness";

/// Installs `host` on this thread until the guard is dropped.
pub(crate) fn install(host: Rc<RefCell<dyn Host>>) -> Installed {
    let previous = HOST.with(|h| h.borrow_mut().replace(host));
    Installed { previous }
}

/// Restores the previously installed host when dropped (also on unwind).
pub(crate) struct Installed {
    previous: Option<Rc<RefCell<dyn Host>>>,
}

impl Drop for Installed {
    fn drop(&mut self) {
        let previous = self.previous.take();
        HOST.with(|h| *h.borrow_mut() = previous);
    }
}

fn with_host<R>(f: impl FnOnce(&mut dyn Host) -> R) -> R {
    let host = HOST.with(|h| h.borrow().clone()).expect(NO_HOST);
    let mut host = host.borrow_mut();
    f(&mut *host)
}

pub(crate) fn record_next() -> i32 {
    with_host(|h| h.record_next())
}

pub(crate) fn state_get(name: &[u8], out: &mut [u8]) -> i32 {
    with_host(|h| h.state_get(name, out))
}

pub(crate) fn state_put(name: &[u8], value: &[u8]) -> i32 {
    with_host(|h| h.state_put(name, value))
}

pub(crate) fn state_delete(name: &[u8]) -> i32 {
    with_host(|h| h.state_delete(name))
}

pub(crate) fn emit(output: &[u8], key: &[u8], value: &[u8], headers: &[u8]) -> i32 {
    with_host(|h| h.emit(output, key, value, headers))
}

pub(crate) fn log(level: i32, msg: &[u8]) {
    with_host(|h| h.log(level, msg))
}

pub(crate) fn event_time() -> i64 {
    with_host(|h| h.event_time())
}

pub(crate) fn processing_time() -> i64 {
    with_host(|h| h.processing_time())
}

pub(crate) fn state_declare(name: &[u8], version: i32, ttl_ms: i64, flags: u32) -> i32 {
    with_host(|h| h.state_declare(name, version, ttl_ms, flags))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Counting(i32);

    impl Host for Counting {
        fn record_next(&mut self) -> i32 {
            self.0 += 1;
            self.0
        }
        fn state_get(&mut self, _: &[u8], _: &mut [u8]) -> i32 {
            0
        }
        fn state_put(&mut self, _: &[u8], _: &[u8]) -> i32 {
            0
        }
        fn state_delete(&mut self, _: &[u8]) -> i32 {
            0
        }
        fn emit(&mut self, _: &[u8], _: &[u8], _: &[u8], _: &[u8]) -> i32 {
            0
        }
        fn log(&mut self, _: i32, _: &[u8]) {}
        fn event_time(&mut self) -> i64 {
            0
        }
        fn processing_time(&mut self) -> i64 {
            0
        }
        fn state_declare(&mut self, _: &[u8], _: i32, _: i64, _: u32) -> i32 {
            0
        }
    }

    #[test]
    #[should_panic(expected = "no host is installed")]
    fn calls_without_a_host_panic_clearly() {
        record_next();
    }

    #[test]
    fn install_routes_calls_and_the_guard_restores() {
        let outer = install(Rc::new(RefCell::new(Counting(0))));
        assert_eq!(record_next(), 1);
        {
            let _inner = install(Rc::new(RefCell::new(Counting(100))));
            assert_eq!(record_next(), 101);
        }
        assert_eq!(record_next(), 2, "the outer host is back");
        drop(outer);
        assert!(HOST.with(|h| h.borrow().is_none()));
    }
}
