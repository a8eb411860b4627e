package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// validateOutput runs validate in-process on path and returns its
// standard error, where warnings go.
func validateOutput(t *testing.T, path string) string {
	t.Helper()
	root := newRootCommand()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs([]string{"validate", path})
	if err := root.Execute(); err != nil {
		t.Fatalf("validate: %v\n%s%s", err, out.String(), errOut.String())
	}
	return errOut.String()
}

// rewritePipeline replaces old by new (once) in the pipeline file at path.
func rewritePipeline(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s has no %q", path, old)
	}
	if err := os.WriteFile(path, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// validate used to accept max_value_bytes = 16777216 against a server whose
// max payload is 1 MiB: every output over 1 MiB would then be
// dead-lettered. It warns, naming both numbers and the fix: for the
// embedded server from the config, for a server at url by asking it, and
// says so when it cannot ask.
func TestValidateWarnsAboutMaxValueBytesOverMaxPayload(t *testing.T) {
	path, port := examplePipeline(t)
	rewritePipeline(t, path, `outputs = { out = "risk-totals" }`, "outputs = { out = \"risk-totals\" }\n  limits {\n    max_value_bytes = 16777216\n  }")
	const warning = "limits.max_value_bytes 16777216 is above the server's max_payload of 1048576 bytes"
	if got := validateOutput(t, path); !strings.Contains(got, warning) || !strings.Contains(got, "raise server.max_payload") {
		t.Errorf("embedded server: stderr %q, want the warning with the fix", got)
	}

	embedded := fmt.Sprintf("embedded_port = %d\n", port)
	rewritePipeline(t, path, embedded, embedded+"  max_payload = 16777216\n")
	if got := validateOutput(t, path); strings.Contains(got, "max_value_bytes") {
		t.Errorf("embedded server with max_payload 16 MiB: stderr %q, want no warning", got)
	}

	rewritePipeline(t, path, embedded+"  max_payload = 16777216\n", fmt.Sprintf("url = %q\n", natsServer(t)))
	if got := validateOutput(t, path); !strings.Contains(got, warning) || !strings.Contains(got, "configuration of the NATS server at server.url") {
		t.Errorf("server at url: stderr %q, want the warning with the fix", got)
	}

	rewritePipeline(t, path, "url = ", fmt.Sprintf("url = \"nats://127.0.0.1:%d\"\n  # was ", testutil.FreePort(t)))
	if got := validateOutput(t, path); !strings.Contains(got, "could not check the operators' limits.max_value_bytes against the server's max_payload") {
		t.Errorf("unreachable server: stderr %q, want the check reported as not made", got)
	}
}
