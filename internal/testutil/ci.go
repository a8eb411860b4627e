package testutil

import (
	"os"
	"testing"
)

// InCI reports whether the environment variable CI is set to something
// other than "", "0" or "false" (CI=true is what CI sets).
func InCI() bool {
	v, ok := os.LookupEnv("CI")
	return ok && v != "" && v != "0" && v != "false"
}

// SkipUnlessCI skips the test with msg, or fails it under CI: a test that
// could not check its case here must not pass silently where every case
// must run.
func SkipUnlessCI(tb testing.TB, msg string) {
	tb.Helper()
	if InCI() {
		tb.Fatal(msg + " (CI is set: failing instead of skipping)")
	}
	tb.Skip(msg)
}
