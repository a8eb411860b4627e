package modref

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateName(t *testing.T) {
	for _, ok := range []string{"a", "risk", "Risk-2_b", "0", strings.Repeat("z", 64), "-", "_"} {
		if err := ValidateName(ok); err != nil {
			t.Errorf("ValidateName(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", strings.Repeat("z", 65), "risk.v2", "a/b", "a b", "a@b", "é", "a\x00", "a*", "a>"} {
		err := ValidateName(bad)
		if !errors.Is(err, ErrName) {
			t.Errorf("ValidateName(%q): got %v, want ErrName", bad, err)
			continue
		}
		if !strings.Contains(err.Error(), "A-Z, a-z, 0-9, _ and -") && !strings.Contains(err.Error(), "shorter") {
			t.Errorf("ValidateName(%q): %q does not say what is allowed", bad, err)
		}
	}
}
