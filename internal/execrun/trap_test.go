package execrun_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/execrun"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// A guest that traps on a record: the record is a dead letter naming the
// trap, the instance is replaced, and the next record runs on the new one.
// The guest (internal/isolate/testdata/policy.wat) traps on a value whose
// first byte is 't', here the JSON record `true`; the key is a subject
// token, as a pipeline file can say.
func TestTrappingRecordIsDeadLettered(t *testing.T) {
	dir := t.TempDir()
	pipeline := filepath.Join(dir, "pipeline.hcl")
	text := `
name = "policy"
stream "IN" {
  subjects = ["in.>"]
}
stream "OUT" {
  subjects = ["out.>"]
}
source "in" {
  stream  = "IN"
  subject = "in.a"
}
operator "policy" {
  module  = "policy.wasm"
  inputs  = ["in"]
  key {
    subject_token = 2
  }
  outputs = { out = "o" }
}
sink "o" {
  subject = "out.o"
}
`
	if err := os.WriteFile(pipeline, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	module := filepath.Join(testutil.ModuleRoot(t), "internal", "isolate", "testdata", "policy.wasm")
	res := run(t, execrun.Options{Module: module, Input: writeLines(t, `true`, `{}`), Pipeline: pipeline, Operator: "policy"})

	if len(res.DeadLetters) != 1 || res.DeadLetters[0].Line != 1 || !strings.Contains(res.DeadLetters[0].Reason, "trap") {
		t.Fatalf("dead letters %+v, want line 1 with a trap", res.DeadLetters)
	}
	if res.Stats.InstanceRestarts != 1 || res.Stats.Processed != 1 {
		t.Errorf("stats %+v, want 1 instance restart and 1 record processed", res.Stats)
	}
}
