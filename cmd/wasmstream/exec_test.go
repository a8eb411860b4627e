package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// exec on the payment-risk example prints the outputs and acct-47's
// state; --json prints one object per line; a bad line exits non-zero
// naming it.
func TestExecCommand(t *testing.T) {
	bin := buildCLI(t)
	root := testutil.ModuleRoot(t)
	ex := filepath.Join(root, "examples", "payment-risk")
	module := testutil.GoGuest(t, "./examples/payment-risk/operator")
	args := []string{"exec", module, "--input", filepath.Join(ex, "events.jsonl"), "--pipeline", filepath.Join(ex, "pipeline.hcl"), "--operator", "risk"}

	human := run(t, bin, "", args...)
	for _, want := range []string{`"total":2100`, "acct-47  total", "seen[evt-48]", "3 record(s)"} {
		if !strings.Contains(human, want) {
			t.Errorf("exec printed\n%s\nwithout %q", human, want)
		}
	}

	types := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(run(t, bin, "", append(args, "--json")...)), "\n") {
		var obj struct{ Type string }
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("--json line %q: %v", line, err)
		}
		types[obj.Type]++
	}
	if types["output"] != 2 || types["state"] != 3 || types["summary"] != 1 {
		t.Errorf("--json printed %v, want 2 outputs, 3 state entries and a summary", types)
	}

	cmd := exec.Command(bin, "exec", module, "--input", "-", "--key-field", "account")
	cmd.Stdin = strings.NewReader("{\"account\":\"a\",\"event\":\"e\",\"cents\":1}\nnot json\n")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err == nil || !strings.Contains(out.String(), "stdin:2: bad input line: not valid JSON") {
		t.Errorf("a bad line: exit %v, output %q; want a non-zero exit naming stdin:2", err, out.String())
	}
}
