package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/plugins"
)

// The tests decode into maps, not the command's own types: a renamed
// field must fail them, since the names are the contract (docs/cli.md).

// jsonDoc runs a command that must succeed and decodes its stdout as one
// JSON object; a --json success prints nothing on stderr.
func jsonDoc(t *testing.T, stdin string, args ...string) map[string]any {
	t.Helper()
	r := runMain(t, stdin, args...)
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("wasmstream %s: exit %d\nstderr: %s", strings.Join(args, " "), r.code, r.stderr)
	}
	return decodeObject(t, r.stdout)
}

func decodeObject(t *testing.T, s string) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(s), &doc); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, s)
	}
	return doc
}

// wantFields checks doc's fields against want, compared as JSON decodes
// them (numbers are float64).
func wantFields(t *testing.T, what string, doc map[string]any, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if got, ok := doc[k]; !ok || got != v {
			t.Errorf("%s: %q = %v (present %v), want %v\n%v", what, k, got, ok, v, doc)
		}
	}
}

func TestJSONValidate(t *testing.T) {
	path, _ := examplePipeline(t)
	doc := jsonDoc(t, "", "validate", path, "--json")
	wantFields(t, "validate", doc, map[string]any{"file": path, "pipeline": "payment-risk", "sources": 1.0, "operators": 1.0, "sinks": 1.0})
	modules, _ := doc["modules"].([]any)
	if len(modules) != 1 {
		t.Fatalf("validate --json modules: %v", doc["modules"])
	}
	m := modules[0].(map[string]any)
	wantFields(t, "validate module", m, map[string]any{"operator": "risk", "abi_version": 1.0})
	text := mustExecCLI(t, "validate", path)
	if hash, _ := m["sha256"].(string); len(hash) != 64 || !strings.Contains(text, hash[:16]) {
		t.Errorf("module sha256 %v is not the one the text prints:\n%s", m["sha256"], text)
	}
	if w, ok := doc["warnings"].([]any); !ok || len(w) != 0 {
		t.Errorf("warnings = %v, want an empty array", doc["warnings"])
	}

	rewritePipeline(t, path, `outputs = { out = "risk-totals" }`, "outputs = { out = \"risk-totals\" }\n  limits {\n    max_value_bytes = 16777216\n  }")
	warnings, _ := jsonDoc(t, "", "validate", path, "--json")["warnings"].([]any)
	if !slices.ContainsFunc(warnings, func(w any) bool { return strings.Contains(w.(string), "above the server's max_payload") }) {
		t.Errorf("warnings = %v, want the max_payload warning in the document", warnings)
	}
}

// A failure with --json is one JSON object on stderr, with the code.
func TestJSONErrorOnStderr(t *testing.T) {
	r := runMain(t, "", "validate", brokenPipeline(t), "--json")
	if r.code != exitInvalidPipeline || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q; want exit %d and nothing on stdout", r.code, r.stdout, exitInvalidPipeline)
	}
	doc := decodeObject(t, r.stderr)
	wantFields(t, "error", doc, map[string]any{"code": float64(exitInvalidPipeline), "name": "invalid_pipeline"})
	if msg, _ := doc["error"].(string); !strings.Contains(msg, "bad.hcl:4:") {
		t.Errorf("error %q lacks file:line:column", msg)
	}
	usage := decodeObject(t, runMain(t, "", "publish", "--json").stderr)
	wantFields(t, "usage error", usage, map[string]any{"code": float64(exitUsage), "name": "usage"})
}

func TestJSONPublishAndRead(t *testing.T) {
	path, _ := examplePipeline(t)
	doc := jsonDoc(t, events, "publish", "--config", path, "--subject", "payments.in", "--id-field", "event", "--json")
	wantFields(t, "publish", doc, map[string]any{"input": "stdin", "subject": "payments.in", "lines": 3.0, "published": 2.0, "duplicates": 1.0})

	r := runMain(t, "", "read", "--config", path, "--subject", "payments.in", "--json")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != exitOK || len(lines) != 2 {
		t.Fatalf("read --json: exit %d, %d lines\n%s%s", r.code, len(lines), r.stdout, r.stderr)
	}
	for i, line := range lines {
		m := decodeObject(t, line)
		wantFields(t, "read", m, map[string]any{"sequence": float64(i + 1), "subject": "payments.in", "data_encoding": "json"})
		data, _ := m["data"].(map[string]any)
		if data["account"] != "acct-47" || m["stream"] == "" || m["time"] == nil {
			t.Errorf("read line %d: %v", i+1, m)
		}
		if headers, _ := m["headers"].(map[string]any); headers["Nats-Msg-Id"] == nil {
			t.Errorf("read line %d lacks the Nats-Msg-Id header: %v", i+1, m)
		}
	}
}

func TestJSONOperatorPushAndRm(t *testing.T) {
	srv := []string{"--server", natsServer(t)}
	good := pluginFixture(t, "good.wasm")
	wasm, _ := os.ReadFile(good)
	hash := plugins.HashBytes(wasm)
	push := append([]string{"operator", "push", good, "--name", "risk", "--json"}, srv...)
	doc := jsonDoc(t, "", push...)
	wantFields(t, "push", doc, map[string]any{"name": "risk", "sha256": hash, "ref": "risk@" + hash, "already_stored": false,
		"bucket": plugins.DefaultBucket, "abi_version": 1.0, "size": float64(len(wasm))})
	wantFields(t, "second push", jsonDoc(t, "", push...), map[string]any{"already_stored": true})

	doc = jsonDoc(t, "", append([]string{"operator", "rm", "risk", "--all-versions", "--json"}, srv...)...)
	removed, _ := doc["removed"].([]any)
	if len(removed) != 1 {
		t.Fatalf("rm --json: %v", doc)
	}
	wantFields(t, "rm", removed[0].(map[string]any), map[string]any{"name": "risk", "sha256": hash, "ref": "risk@" + hash})
}

func TestJSONSavepointExportImportRm(t *testing.T) {
	cfg, _ := savepointFixture(t, "")
	mustRunSavepoint(t, "create", cfg, "--name", "golden")
	archive := filepath.Join(t.TempDir(), "golden.tar")
	doc := jsonDoc(t, "", "savepoint", "export", cfg, "golden", archive, "--json")
	b, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	wantFields(t, "export", doc, map[string]any{"name": "golden", "file": archive, "bytes": float64(len(b)), "sha256": hex.EncodeToString(sum[:])})
	wantExit(t, runMain(t, "", "savepoint", "export", cfg, "golden", "-", "--json"), exitUsage, "standard output holds the archive")

	other := t.TempDir()
	doc = jsonDoc(t, "", "savepoint", "import", "--data-dir", other, archive, "--json")
	wantFields(t, "import", doc, map[string]any{"name": "golden", "from": archive, "already_imported": false, "checkpoint_id": 3.0})
	wantFields(t, "second import", jsonDoc(t, "", "savepoint", "import", "--data-dir", other, archive, "--json"),
		map[string]any{"already_imported": true})

	doc = jsonDoc(t, "", "savepoint", "rm", "--data-dir", other, "golden", "--json")
	wantFields(t, "rm", doc, map[string]any{"removed": "golden"})
	if dir, _ := doc["dir"].(string); dir == "" {
		t.Errorf("rm --json: no dir: %v", doc)
	} else if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("rm --json named %s, which is still there (%v)", dir, err)
	}
}

// An upgrade of a pipeline that is not running fails with exit code 7;
// with --json the reason is a JSON object on stderr, stdout stays empty.
func TestJSONUpgradeRefusedWhenNotRunning(t *testing.T) {
	path, _ := examplePipeline(t)
	r := runMain(t, "", "upgrade", path, "--operator", "risk", "--module", pluginFixture(t, "good.wasm"), "--timeout", "5s", "--json")
	if r.code != exitNotRunning || r.stdout != "" {
		t.Fatalf("upgrade of a stopped pipeline: exit %d, stdout %q", r.code, r.stdout)
	}
	doc := decodeObject(t, r.stderr)
	if doc["code"] != float64(r.code) || doc["error"] == "" {
		t.Errorf("error object %v does not match exit %d", doc, r.code)
	}
	if !strings.Contains(r.stderr, "start it with wasmstream run") {
		t.Errorf("the error lacks the fix: %s", r.stderr)
	}
}

// read --json keeps every payload: JSON as itself, other text as a
// string, other bytes as base64.
func TestJSONReadPayloadEncodings(t *testing.T) {
	cases := []struct {
		payload, want, encoding string
	}{
		{`{"a": 1}`, `{"a":1}`, "json"},
		{"plain text", `"plain text"`, "text"},
		{"\xff\x00\x01", `"/wAB"`, "base64"},
	}
	for _, c := range cases {
		v, enc := payloadJSON([]byte(c.payload))
		got, err := json.Marshal(v)
		if err != nil || string(got) != c.want || enc != c.encoding {
			t.Errorf("payloadJSON(%q) = %s %q (%v), want %s %q", c.payload, got, enc, err, c.want, c.encoding)
		}
	}
}
