package config

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary text to Parse. It must never panic, must keep its contract (an error
// if and only if an error diagnostic, a Pipeline if and only if no error), and a Pipeline it
// returns must print to a config that reads back without errors. Seeds: every test file.
func FuzzParse(f *testing.F) {
	seeds, err := filepath.Glob("testdata/*/*.hcl")
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seeds: %v", err)
	}
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(""))
	f.Add([]byte("name = \"x\"\noperator \"o\" { config = file(\"risk.json\") }"))
	// Loads with a warning: alignment_timeout has no effect in unaligned mode.
	f.Add([]byte(`name = "x"
checkpoint {
  interval          = "0s"
  mode              = "unaligned"
  alignment_timeout = "1s"
  retain            = 2
}
source "in" {
  stream = "S"
}
stream "S" {
  subjects = ["s.>"]
}
operator "o" {
  module        = "o.wasm"
  state_version = "v1"
  inputs        = ["in"]
  key {
    header = "K"
  }
  outputs = { out = "out" }
}
sink "out" {
  subject = "t.out"
}
`))
	// Paths resolve against testdata/valid, where risk.json lives.
	filename := filepath.Join("testdata", "valid", "fuzz.hcl")
	f.Fuzz(func(t *testing.T, src []byte) {
		p, diags, err := Parse(src, filename)
		checkContract(t, p, diags, err)
		if p == nil {
			return
		}
		if _, _, err := Parse([]byte(p.String()), filename); err != nil {
			t.Fatalf("printed config does not read back:\n%s\n%v", p, err)
		}
	})
}
