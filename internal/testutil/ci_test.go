package testutil

import (
	"os"
	"testing"
)

func TestInCI(t *testing.T) {
	for v, want := range map[string]bool{"true": true, "1": true, "yes": true, "": false, "0": false, "false": false} {
		t.Setenv("CI", v)
		if InCI() != want {
			t.Errorf("CI=%q: InCI() = %t, want %t", v, !want, want)
		}
	}
	t.Setenv("CI", "")
	os.Unsetenv("CI")
	if InCI() {
		t.Error("InCI() with CI unset")
	}
}
