package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// The guests of the yardstick benchmark: "passthrough" (emit every record
// unchanged, no state; internal/bench/guests, built here) and "counter"
// (the `failer` reference operator of conformance/OPERATORS.md: get, put
// and emit with a count header per record, the B1 work; Go built here, C
// and Rust from scripts/build-<lang>.sh).

// ysOperators are the wasmstream operators of the benchmark.
var ysOperators = []string{"passthrough", "counter"}

// ysGuest returns the module of operator op in lang, or a reason why it is
// not available (a missing toolchain or build).
func ysGuest(b *testing.B, lang, op string) (path, missing string) {
	b.Helper()
	root := testutil.ModuleRoot(b)
	switch {
	case lang == "go" && op == "passthrough":
		return testutil.GoGuest(b, "./internal/bench/guests/passthrough"), ""
	case lang == "go":
		return testutil.GoGuest(b, "./conformance/operators/go/failer"), ""
	case op == "counter":
		path := filepath.Join(root, "conformance", "build", lang, "failer.wasm")
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Sprintf("%s not built: run scripts/build-%s.sh", path, lang)
		}
		return path, ""
	case lang == "c":
		return ysBuildC(b, root)
	case lang == "rust":
		return ysBuildRust(b, root)
	}
	return "", "unknown language " + lang
}

// ysBuildC compiles guests/c/passthrough.c with the C SDK, as
// scripts/build-c.sh compiles the reference operators.
func ysBuildC(b *testing.B, root string) (string, string) {
	cc := "clang-19"
	if _, err := exec.LookPath(cc); err != nil {
		return "", "clang-19 not found: run scripts/build-c.sh once to install it"
	}
	out := filepath.Join(b.TempDir(), "passthrough-c.wasm")
	sdk := filepath.Join(root, "sdk", "c")
	cmd := exec.Command(cc, "--target=wasm32-wasi", "--sysroot=/usr", "-mexec-model=reactor", "-O2", "-std=c11",
		"-Wall", "-Wextra", "-Werror", "-Wl,--strip-debug", "-I"+sdk, "-o", out,
		filepath.Join(root, "internal", "bench", "guests", "c", "passthrough.c"),
		filepath.Join(sdk, "wasmstream.c"), filepath.Join(sdk, "wasmstream_json.c"))
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build the C pass-through guest: %v\n%s", err, msg)
	}
	return out, ""
}

// ysBuildRust builds guests/rust-passthrough with Debian's toolchain, as
// scripts/build-rust.sh does, into a target directory kept between runs.
func ysBuildRust(b *testing.B, root string) (string, string) {
	const rustc, cargo = "/usr/bin/rustc", "/usr/bin/cargo"
	for _, tool := range []string{rustc, cargo} {
		if _, err := os.Stat(tool); err != nil {
			return "", tool + " not found: run scripts/build-rust.sh once to install it"
		}
	}
	target := filepath.Join(os.TempDir(), "wasmstream-yardstick-rust")
	cmd := exec.Command(cargo, "build", "--quiet", "--offline", "--release", "--target", "wasm32-unknown-unknown")
	cmd.Dir = filepath.Join(root, "internal", "bench", "guests", "rust-passthrough")
	cmd.Env = append(os.Environ(), "RUSTC="+rustc, "CARGO_TARGET_DIR="+target)
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build the Rust pass-through guest: %v\n%s", err, msg)
	}
	return filepath.Join(target, "wasm32-unknown-unknown", "release", "ws_passthrough.wasm"), ""
}
