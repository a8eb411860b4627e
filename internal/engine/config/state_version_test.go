package config

import (
	"strings"
	"testing"
)

func TestValidStateVersion(t *testing.T) {
	for s, want := range map[string]bool{
		"1":                     true,
		"orders-v3.1_x":         true,
		"ABC.def-ghi_0":         true,
		strings.Repeat("a", 64): true,
		"":                      false,
		strings.Repeat("a", 65): false,
		"v 2":                   false,
		"v2/next":               false,
		"v2:next":               false,
		"é":                     false,
		"v2\n":                  false,
		"${x}":                  false,
		"1,2":                   false,
	} {
		if got := validStateVersion(s); got != want {
			t.Errorf("validStateVersion(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestStateVersionDecode: the attribute is optional, kept as written, and a number is read as
// its text like any string setting.
func TestStateVersionDecode(t *testing.T) {
	for line, want := range map[string]string{
		"":                          "",
		"state_version = null":      "",
		`state_version = "v3"`:      "v3",
		"state_version = 2":         "2",
		`state_version = "2024.06"`: "2024.06",
	} {
		src := strings.Replace(checkpointBase, `module = "o.wasm"`, `module = "o.wasm"`+"\n  "+line, 1)
		p, diags, err := Parse([]byte(src), "p.hcl")
		if err != nil || len(diags) > 0 {
			t.Errorf("%s: %v", line, diags)
			continue
		}
		if got := p.Operators[0].StateVersion; got != want {
			t.Errorf("%s: StateVersion %q, want %q", line, got, want)
		}
	}
}
