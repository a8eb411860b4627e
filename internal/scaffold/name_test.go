package scaffold

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"a", "payments-total", "pay_totals2", strings.Repeat("a", maxNameLen)} {
		if err := CheckName(ok); err != nil {
			t.Errorf("CheckName(%q): %v", ok, err)
		}
	}
	for name, why := range map[string]string{
		"":                                "empty",
		"Pay":                             "lower-case letter",
		"1pay":                            "lower-case letter",
		"-pay":                            "lower-case letter",
		"pay.v2":                          `"." at byte 3`,
		"pay total":                       `" " at byte 3`,
		"payé":                            `"é" at byte 3`,
		strings.Repeat("a", maxNameLen+1): "at most 64",
	} {
		err := CheckName(name)
		if !errors.Is(err, ErrBadName) || !strings.Contains(err.Error(), why) {
			t.Errorf("CheckName(%q) = %v, want ErrBadName saying %q", name, err, why)
		}
	}
}

func TestParseLang(t *testing.T) {
	for in, want := range map[string]Lang{"go": Go, "Rust": Rust, " c ": C, "as": AssemblyScript, "AssemblyScript": AssemblyScript} {
		if got, err := ParseLang(in); err != nil || got != want {
			t.Errorf("ParseLang(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseLang("zig"); !errors.Is(err, ErrUnknownLang) {
		t.Errorf("ParseLang(zig): %v", err)
	}
}
