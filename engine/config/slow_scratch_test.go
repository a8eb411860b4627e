package config

import (
	"strings"
	"testing"
	"time"
)

func TestScratchSlow(t *testing.T) {
	for _, src := range []string{
		"name = 1e999999999",
		"name = \"x\"\noperator \"o\" {\n parallelism = 1e999999999\n max_parallelism = -1e-99999999\n}",
		"name = " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000),
		"name = \"${" + strings.Repeat("\"${", 2000) + "}\"",
		"name = jsonencode(" + strings.Repeat("[", 3000) + strings.Repeat("]", 3000) + ")",
	} {
		start := time.Now()
		_, _, err := Parse([]byte(src), "x.hcl")
		t.Logf("%v %.80v", time.Since(start), err)
	}
}
