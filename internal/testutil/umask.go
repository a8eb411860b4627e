package testutil

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Umask returns the process's file mode creation mask, read from
// /proc/self/status (Linux): syscall.Umask would have to set it to read
// it, for every goroutine of the test binary at once. ok is false where
// it cannot be read.
func Umask() (mask os.FileMode, ok bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, found := strings.CutPrefix(sc.Text(), "Umask:"); found {
			m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32)
			return os.FileMode(m), err == nil
		}
	}
	return 0, false
}

// NeedLooseUmask skips tb when the umask already clears the group's and
// others' permission bits: every file would be private without the code
// under test, so a test that checks modes could not fail.
func NeedLooseUmask(tb testing.TB) {
	tb.Helper()
	if mask, ok := Umask(); ok && mask&0o077 == 0o077 {
		tb.Skipf("umask %04o already makes every new file private; run with umask 022 to test the modes the code sets", mask)
	}
}

// PrivateTempDir is t.TempDir made 0700, as a data dir the engine creates
// is: t.TempDir's directories follow the umask (0755 under the usual 022),
// which the engine warns about.
func PrivateTempDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}
