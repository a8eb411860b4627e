// Package testutil holds helpers shared by tests and benchmarks: building Go
// guest modules, picking free ports, the CI rule (InCI, SkipUnlessCI),
// checking errors (WantErr) and a TCP proxy that freezes a NATS server
// (FreezeProxy).
package testutil

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var buildMu sync.Mutex

// GoGuest builds the Go guest package pkg (a path relative to the module
// root, e.g. "./examples/payment-risk/operator") for wasip1 as a reactor and
// returns the path of the .wasm file. Builds are cached per process.
func GoGuest(tb testing.TB, pkg string) string {
	tb.Helper()
	return GoGuestWithFlags(tb, pkg, "")
}

// GoGuestWithFlags is GoGuest with -ldflags, e.g. "-X main.release=2" to
// build another release of an example operator.
func GoGuestWithFlags(tb testing.TB, pkg, ldflags string) string {
	tb.Helper()
	return goBuild(tb, ModuleRoot(tb), pkg, "-buildmode=c-shared", "-ldflags="+ldflags)
}

// GoGuestIn is GoGuest for a package of the Go module whose go.mod is in
// root: a nested module (internal/bench/extism) builds its own guests and
// the main module's with it, since ModuleRoot there is the nested module.
func GoGuestIn(tb testing.TB, root, pkg string) string {
	tb.Helper()
	return goBuild(tb, root, pkg, "-buildmode=c-shared", "-ldflags=")
}

// GoGuestCommand builds pkg for wasip1 without -buildmode=c-shared: a WASI
// command module, the mistake the host must refuse with the fix.
func GoGuestCommand(tb testing.TB, pkg string) string {
	tb.Helper()
	return goBuild(tb, ModuleRoot(tb), pkg)
}

// goBuild runs go build for wasip1 with flags in the module at root, once
// per process.
func goBuild(tb testing.TB, root, pkg string, flags ...string) string {
	tb.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	sum := sha256.Sum256([]byte(root + "|" + pkg + "|" + strings.Join(flags, " ")))
	out := filepath.Join(os.TempDir(), "wasmstream-guests-"+strconvPID(), hex.EncodeToString(sum[:8])+".wasm")
	if _, err := os.Stat(out); err == nil {
		return out
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command("go", append(append([]string{"build"}, flags...), "-o", out, pkg)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("build Go guest %s: %v\n%s", pkg, err, b)
	}
	return out
}

// GoGuestBytes is GoGuest returning the module's bytes.
func GoGuestBytes(tb testing.TB, pkg string) []byte {
	tb.Helper()
	b, err := os.ReadFile(GoGuest(tb, pkg))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// ModuleRoot returns the directory of the repository's go.mod.
func ModuleRoot(tb testing.TB) string {
	tb.Helper()
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		tb.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(b)))
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func strconvPID() string { return strconv.Itoa(os.Getpid()) }
