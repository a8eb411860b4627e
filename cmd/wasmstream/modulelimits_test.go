package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/wasmgen"
)

// An operator's limits.max_table_elements reaches the host: validate
// refuses a module whose table is larger, and accepts it at its size.
func TestValidateAppliesMaxTableElements(t *testing.T) {
	dir := t.TempDir()
	wasm := filepath.Join(dir, "op.wasm")
	if err := os.WriteFile(wasm, wasmgen.Module(wasmgen.Shape{Table: true, TableMin: 1, TableMax: 500}), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit   int
		refused bool
	}{{499, true}, {500, false}} {
		path := filepath.Join(dir, fmt.Sprintf("p%d.hcl", tc.limit))
		text := fmt.Sprintf(`name     = "tables"
data_dir = %q
stream "IN" {
  subjects = ["in.>", "out.>"]
}
source "in" {
  stream  = "IN"
  subject = "in.>"
}
operator "op" {
  module  = %q
  inputs  = ["in"]
  key {
    subject_token = 1
  }
  outputs = { out = "out" }
  limits {
    max_table_elements = %d
  }
}
sink "out" {
  subject = "out.x"
}
`, filepath.Join(dir, "data"), wasm, tc.limit)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := execCLI(t, "validate", path)
		if refused := errors.Is(err, host.ErrModuleLimit) && strings.Contains(err.Error(), "limits.max_table_elements"); refused != tc.refused {
			t.Errorf("max_table_elements %d: %v, want refused %v", tc.limit, err, tc.refused)
		}
	}
}
