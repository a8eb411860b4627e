package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/host"
)

// nativeCFlags build the SDK and its test harness for this machine: the
// flags of the C scaffold's make test (internal/scaffold).
var nativeCFlags = []string{"-std=c11", "-Wall", "-Wextra", "-Werror", "-I..", "-I../testing"}

// hostCC returns the host's C compiler ($CC_HOST, else cc). Without one
// the test is skipped, or fails under CI.
func hostCC(tb testing.TB) string {
	tb.Helper()
	name := os.Getenv("CC_HOST")
	if name == "" {
		name = "cc"
	}
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("CI") != "" {
		tb.Fatalf("%s not found: the native harness tests need the host's C compiler (apt-get install -y gcc)", name)
	}
	tb.Skipf("%s not installed: the native harness tests need the host's C compiler", name)
	return ""
}

// TestNativeHarness compiles testdata/native/harness_test.c, the tests of
// testing/wasmstream_testing.h on the operator counter.c, with the host's
// compiler and runs it: every check of it must pass.
func TestNativeHarness(t *testing.T) {
	bin := buildNative(t, "testdata/native/harness_test.c", "testdata/native/counter.c")
	out, err := exec.Command(bin).CombinedOutput()
	if err != nil {
		t.Fatalf("harness_test: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "all checks passed") {
		t.Fatalf("harness_test printed no success line:\n%s", out)
	}
}

// TestNativeHarnessReportsFailures: a check that does not hold makes the
// test program fail and name it, so that TestNativeHarness cannot pass on
// a harness that checks nothing.
func TestNativeHarnessReportsFailures(t *testing.T) {
	src, err := os.ReadFile("testdata/native/harness_test.c")
	if err != nil {
		t.Fatal(err)
	}
	wrong := strings.Replace(string(src), "count == 3)", "count == 4)", 1)
	if wrong == string(src) {
		t.Fatal("harness_test.c no longer checks that a's count is 3")
	}
	path := filepath.Join(t.TempDir(), "wrong_test.c")
	if err := os.WriteFile(path, []byte(wrong), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(buildNative(t, path, "testdata/native/counter.c")).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "count == 4") {
		t.Fatalf("a wrong expectation passed (err %v):\n%s", err, out)
	}
}

// TestNativeOperatorIsAModule: the operator the harness tests builds
// unchanged into a module, and the real host gives the batch of
// harness_test.c's test_dead_letters what the harness gave: records 1 and
// 2 dead-lettered, "1" and "2" emitted for records 0 and 3, a count of 2.
func TestNativeOperatorIsAModule(t *testing.T) {
	g := newGuest(t, buildGuest(t, "testdata/native/counter.c"), host.InstanceConfig{}).mustStart()
	res := g.runBatch([]host.Record{rec("a", "x"), rec("a", "fail"), rec("a", "lost"), rec("a", "y")})
	if !slices.Equal(res.dead, []int{1, 2}) {
		t.Errorf("dead letters %v, want [1 2] as in the harness", res.dead)
	}
	var got []string
	for _, o := range res.outs {
		got = append(got, fmt.Sprintf("%d:%s", o.Record, o.Value))
	}
	if want := []string{"0:1", "3:2"}; !slices.Equal(got, want) {
		t.Errorf("outputs %v, want %v as in the harness", got, want)
	}
	if v, ok := g.stateOf("a", "count"); !ok || len(v) != 8 || v[0] != 2 {
		t.Errorf("count of a: %v %v, want 2 as in the harness", v, ok)
	}
}

// buildNative compiles sources with the SDK and the harness into a native
// program and returns its path.
func buildNative(t *testing.T, sources ...string) string {
	t.Helper()
	cc := hostCC(t)
	bin := filepath.Join(t.TempDir(), "harness_test")
	args := append(append([]string{}, nativeCFlags...), "-o", bin)
	args = append(append(args, sources...), "../wasmstream.c", "../wasmstream_json.c", "../testing/wasmstream_testing.c")
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("cc %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return bin
}
