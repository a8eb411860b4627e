package testutil

import (
	"errors"
	"strings"
	"testing"
)

// WantErr fails tb unless err is an error that wraps target (any error
// when target is nil) and whose message mentions every part: an error
// must say what failed and on which object.
func WantErr(tb testing.TB, err, target error, parts ...string) {
	tb.Helper()
	if err == nil {
		tb.Fatalf("no error; want %v", target)
	}
	if target != nil && !errors.Is(err, target) {
		tb.Fatalf("error %v does not wrap %v", err, target)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			tb.Errorf("error %q does not say %q", err, p)
		}
	}
}
