package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// cflags are the flags of scripts/build-c.sh; paths are relative to
// sdk/c/tests, the directory go test runs in.
var cflags = []string{
	"--target=wasm32-wasi", "--sysroot=/usr", "-mexec-model=reactor", "-O2", "-std=c11",
	"-Wall", "-Wextra", "-Werror", "-Wl,--strip-debug", "-I..", "-I../../../examples/payment-risk/c",
}

// sdkSources are compiled into every guest.
var sdkSources = []string{"../wasmstream.c", "../wasmstream_json.c"}

var (
	buildMu sync.Mutex
	built   = map[string][]byte{}
)

// clang returns the path of clang-19. Without it the test is skipped, or
// fails under CI, where scripts/build-c.sh has installed it.
func clang(tb testing.TB) string {
	tb.Helper()
	path, err := exec.LookPath("clang-19")
	if err == nil {
		return path
	}
	if os.Getenv("CI") != "" {
		tb.Fatal("clang-19 not found; run scripts/build-c.sh, which installs the C toolchain")
	}
	tb.Skip("clang-19 not installed; run scripts/build-c.sh to install it and build the C guests")
	return ""
}

// buildGuest compiles sources (relative to sdk/c/tests) with the SDK into a
// module and returns its bytes. Builds are cached for the test process.
func buildGuest(tb testing.TB, sources ...string) []byte {
	tb.Helper()
	cc := clang(tb)
	key := strings.Join(sources, " ")
	buildMu.Lock()
	defer buildMu.Unlock()
	if b, ok := built[key]; ok {
		return b
	}
	out := filepath.Join(tb.TempDir(), "guest.wasm")
	args := append(append(append(append([]string{}, cflags...), "-o", out), sources...), sdkSources...)
	if msg, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		tb.Fatalf("build C guest %s: %v\n%s", key, err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		tb.Fatal(err)
	}
	built[key] = b
	return b
}

// The guests of these tests.
func probeWasm(tb testing.TB) []byte { return buildGuest(tb, "testdata/probe.c") }

func riskWasm(tb testing.TB) []byte {
	return buildGuest(tb, "../../../examples/payment-risk/c/risk.c", "../../../examples/payment-risk/c/payment.c")
}

func operatorWasm(tb testing.TB, name string) []byte {
	src := []string{"../../../conformance/operators/c/" + name + ".c"}
	if name == "counter" || name == "join" {
		src = append(src, "../../../examples/payment-risk/c/payment.c")
	}
	return buildGuest(tb, src...)
}

// Every guest builds without warnings and loads in the host.
func TestGuestsBuildAndLoad(t *testing.T) {
	for name, wasm := range map[string][]byte{
		"probe":    probeWasm(t),
		"risk":     riskWasm(t),
		"counter":  operatorWasm(t, "counter"),
		"dedup":    operatorWasm(t, "dedup"),
		"join":     operatorWasm(t, "join"),
		"failer":   operatorWasm(t, "failer"),
		"ttldedup": operatorWasm(t, "ttldedup"),
		"declare":  declareWasm(t),
	} {
		t.Run(name, func(t *testing.T) {
			rt := newRuntime(t)
			if _, err := rt.Compile(t.Context(), name, wasm); err != nil {
				t.Fatalf("compile %s (%d bytes): %v", name, len(wasm), err)
			}
			t.Logf("%s: %d bytes", name, len(wasm))
		})
	}
}
