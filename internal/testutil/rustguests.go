package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Debian's Rust toolchain, the one scripts/build-rust.sh installs: a rustup
// toolchain first on PATH usually has no wasm32 standard library.
const (
	debianRustc   = "/usr/bin/rustc"
	debianCargo   = "/usr/bin/cargo"
	debianWasmStd = "/usr/lib/rustlib/wasm32-unknown-unknown"
)

// RustGuest builds the cdylib crate in dir (relative to the module root,
// e.g. "examples/payment-graph/merchants") for wasm32 and returns the path
// of its module lib.wasm in the crate's target directory; Cargo's own cache
// makes a rebuild cheap. Without the toolchain the test is skipped, or fails
// under CI, which must build every language.
func RustGuest(tb testing.TB, dir, lib string) string {
	tb.Helper()
	for _, p := range []string{debianRustc, debianCargo, debianWasmStd} {
		if _, err := os.Stat(p); err != nil {
			msg := "Rust toolchain missing (" + p + "): run scripts/build-rust.sh to install it"
			if InCI() {
				tb.Fatal(msg + " (CI must build every language)")
			}
			tb.Skip(msg)
		}
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	crate := filepath.Join(ModuleRoot(tb), dir)
	cmd := exec.Command(debianCargo, "build", "--quiet", "--offline", "--release", "--target", "wasm32-unknown-unknown")
	cmd.Dir = crate
	cmd.Env = append(os.Environ(), "RUSTC="+debianRustc)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("cargo build in %s: %v\n%s", dir, err, out)
	}
	return filepath.Join(crate, "target", "wasm32-unknown-unknown", "release", lib+".wasm")
}
