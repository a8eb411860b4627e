package scaffold

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// rustWasmTarget is the target of Rust guests: the SDK imports only the
// wasmstream module, no WASI.
const rustWasmTarget = "wasm32-unknown-unknown"

// rustInstall is what scripts/build-rust.sh installs.
const rustInstall = "apt-get install -y --no-install-recommends rustc cargo libstd-rust-dev-wasm32 lld-14"

// buildRust builds the crate's cdylib for wasm32 and copies it to the
// module path.
func (b *builder) buildRust(ctx context.Context) error {
	rustc, cargo, err := rustToolchain()
	if err != nil {
		return err
	}
	lib, err := cargoLibName(filepath.Join(b.dir, "Cargo.toml"))
	if err != nil {
		return err
	}
	if err := b.run(ctx, []string{"RUSTC=" + rustc}, cargo, "build", "--offline", "--release", "--target", rustWasmTarget); err != nil {
		return err
	}
	built := filepath.Join(cargoTargetDir(b.dir), rustWasmTarget, "release", lib+".wasm")
	fmt.Fprintf(b.progress, "+ cp %s %s\n", built, b.outArg)
	return copyFile(built, b.module)
}

// rustToolchain finds a rustc that has the wasm32 standard library (RUSTC,
// Debian's /usr/bin/rustc, then the one on PATH: a rustup toolchain usually
// lacks it) and the cargo to drive it.
func rustToolchain() (rustc, cargo string, err error) {
	for _, c := range []string{os.Getenv("RUSTC"), "/usr/bin/rustc", "rustc"} {
		if c != "" && hasWasmStd(c) {
			rustc = c
			break
		}
	}
	if rustc == "" {
		return "", "", missing(Rust, "a rustc with the "+rustWasmTarget+" standard library", rustInstall)
	}
	if rustc == "/usr/bin/rustc" {
		// Debian's rustc links wasm with rust-lld, a link to lld-14 that
		// libstd-rust-dev-wasm32 only recommends.
		if _, err := exec.LookPath("rust-lld"); err != nil {
			return "", "", missing(Rust, "the wasm linker rust-lld (package lld-14) on PATH", rustInstall)
		}
	}
	for _, c := range []string{os.Getenv("CARGO"), filepath.Join(filepath.Dir(rustc), "cargo"), "cargo"} {
		if p, err := exec.LookPath(c); c != "" && err == nil {
			return rustc, p, nil
		}
	}
	return "", "", missing(Rust, "cargo", rustInstall)
}

// hasWasmStd reports whether rustc's sysroot has the wasm32 standard library.
func hasWasmStd(rustc string) bool {
	out, err := exec.Command(rustc, "--print", "sysroot").Output()
	if err != nil {
		return false
	}
	return exists(filepath.Join(strings.TrimSpace(string(out)), "lib", "rustlib", rustWasmTarget))
}

// cargoTargetDir is where cargo writes: CARGO_TARGET_DIR or dir/target.
func cargoTargetDir(dir string) string {
	if d := os.Getenv("CARGO_TARGET_DIR"); d != "" {
		return d
	}
	return filepath.Join(dir, "target")
}

// cargoLibName reads the library's name from a Cargo.toml: [lib] name, or
// else the package name with '-' made '_' (what cargo names the .wasm).
func cargoLibName(manifest string) (string, error) {
	b, err := os.ReadFile(manifest)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoProject, err)
	}
	names := map[string]string{}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = strings.Trim(line, "[] ")
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(key) == "name" && names[section] == "" {
			names[section] = strings.Trim(strings.TrimSpace(value), `"`)
		}
	}
	if n := names["lib"]; n != "" {
		return n, nil
	}
	if n := names["package"]; n != "" {
		return strings.ReplaceAll(n, "-", "_"), nil
	}
	return "", fmt.Errorf("%w: %s names no [package] or [lib]; a Rust operator is a cdylib crate (wasmstream init --lang rust NAME makes one)", ErrNoProject, manifest)
}

// copyFile copies a build output to the module path.
func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("%w: %v; is the crate-type of [lib] \"cdylib\"?", ErrBuildFailed, err)
	}
	return os.WriteFile(to, b, 0o644)
}
