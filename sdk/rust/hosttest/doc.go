// Package hosttest runs modules built with the Rust SDK (sdk/rust) in the
// real wasmstream host, with real Pebble state: the ABI as the host
// enforces it, not as the SDK's in-memory test host imitates it.
//
// The tests build the Rust crates with Debian's toolchain (see
// scripts/build-rust.sh, which installs it) and skip when it is missing,
// or fail when the environment variable CI is set.
package hosttest
