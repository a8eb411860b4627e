package config

import (
	"strings"
	"testing"
)

func TestCheckNumberLiterals(t *testing.T) {
	for _, tc := range []struct {
		expr string
		ok   bool
	}{
		{"1", true}, {"0", true}, {"-4096", true}, {"1e77", true}, {"1e-77", true}, {"0.5", true},
		{"1e78", false}, {"-1e78", false}, {"1e-78", false}, {"1e999999", false},
		{`jsonencode([1e300])`, false}, {`{ a = 1e300 }`, false},
	} {
		src := "name = \"n\"\nx = " + tc.expr + "\n"
		_, _, err := Parse([]byte(src), "n.hcl")
		rangeErr := err != nil && strings.Contains(err.Error(), "n.hcl:2:") && strings.Contains(err.Error(), "number out of range")
		if rangeErr == tc.ok {
			t.Errorf("%s: out-of-range reported = %v, want %v (%v)", tc.expr, rangeErr, !tc.ok, err)
		}
	}
}
