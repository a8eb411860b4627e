package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wasmstream/wasmstream/internal/scaffold"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// projectEnv is added to every command run in a scaffolded project: a Go
// project must build and vet without a module proxy, from its SDK copy.
var projectEnv = []string{"GOFLAGS=-mod=mod", "GOPROXY=off"}

var (
	scaffoldBinOnce sync.Once
	scaffoldBin     string
	scaffoldBinErr  error
)

// scaffoldCLI builds the wasmstream binary once for the tests of this file.
func scaffoldCLI(t *testing.T) string {
	t.Helper()
	scaffoldBinOnce.Do(func() {
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("wasmstream-scaffold-cli-%d", os.Getpid()))
		scaffoldBin = filepath.Join(dir, "wasmstream")
		out, err := exec.Command("go", "build", "-o", scaffoldBin, ".").CombinedOutput()
		if err != nil {
			scaffoldBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if scaffoldBinErr != nil {
		t.Fatal(scaffoldBinErr)
	}
	return scaffoldBin
}

// inProject runs name with args in dir and returns its combined output.
func inProject(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), projectEnv...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func mustInProject(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	out, err := inProject(dir, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

// initAndBuild scaffolds a project of language l and builds it with the
// CLI; a missing toolchain skips the test, or fails it under CI.
func initAndBuild(t *testing.T, bin string, l scaffold.Lang) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pay-totals")
	mustInProject(t, filepath.Dir(dir), bin, "init", "--lang", string(l), "pay-totals")
	out, err := inProject(dir, bin, "build")
	if err != nil && strings.Contains(out, "toolchain missing") {
		testutil.SkipUnlessCI(t, strings.TrimSpace(out)+" (scripts/build-examples.sh installs it)")
	}
	if err != nil {
		t.Fatalf("wasmstream build: %v\n%s", err, out)
	}
	if !strings.Contains(out, "built operator.wasm ("+l.Title()+" operator): ") {
		t.Fatalf("wasmstream build printed no module and size:\n%s", out)
	}
	return dir
}

// For every language: init, build, the project's own tests (make test),
// then the module in the engine's machinery (wasmstream exec) on the sample
// events gives the same outputs, dead letters and state.
func TestInitBuildTestAndExecEveryLanguage(t *testing.T) {
	bin := scaffoldCLI(t)
	if _, err := exec.LookPath("make"); err != nil {
		testutil.SkipUnlessCI(t, "make is not installed (apt-get install -y make)")
	}
	for _, l := range scaffold.Langs {
		t.Run(string(l), func(t *testing.T) {
			dir := initAndBuild(t, bin, l)
			mustInProject(t, dir, "make", "test", "WASMSTREAM="+bin)
			checkExec(t, mustInProject(t, dir, bin, "exec", "operator.wasm", "--input", "events.jsonl", "--key-field", "account", "--json"))
		})
	}
}

// execLine is what checkExec reads of wasmstream exec --json.
type execLine struct {
	Type   string          `json:"type"`
	Key    string          `json:"key"`
	State  string          `json:"state"`
	Line   int             `json:"line"`
	Reason string          `json:"reason"`
	Value  json.RawMessage `json:"value"`
}

// checkExec checks exec's results on events.jsonl.
func checkExec(t *testing.T, out string) {
	t.Helper()
	var outputs, state []string
	var dead []execLine
	for _, text := range strings.Split(strings.TrimSpace(out), "\n") {
		var l execLine
		if !strings.HasPrefix(text, "{") {
			continue // the guest's own log lines on stderr
		}
		if err := json.Unmarshal([]byte(text), &l); err != nil {
			t.Fatalf("exec line %q: %v", text, err)
		}
		var compact bytes.Buffer
		_ = json.Compact(&compact, l.Value)
		switch l.Type {
		case "output":
			outputs = append(outputs, compact.String())
		case "dead_letter":
			dead = append(dead, l)
		case "state":
			state = append(state, l.Key+" "+l.State+" "+compact.String())
		}
	}
	want := []string{
		`{"account":"acct-1","cents":1200,"total":1200}`,
		`{"account":"acct-2","cents":500,"total":500}`,
		`{"account":"acct-1","cents":900,"total":2100}`,
	}
	if strings.Join(outputs, "\n") != strings.Join(want, "\n") {
		t.Errorf("outputs:\n%s\nwant:\n%s", strings.Join(outputs, "\n"), strings.Join(want, "\n"))
	}
	if len(dead) != 1 || dead[0].Line != 4 || !strings.Contains(dead[0].Reason, "bad payment: negative cents -5") {
		t.Errorf("dead letters %+v, want line 4 for its negative cents", dead)
	}
	wantState := `acct-2 total "f401000000000000"` + "\n" + `acct-1 total "3408000000000000"` // 500 and 2100, little-endian
	if strings.Join(state, "\n") != wantState {
		t.Errorf("state:\n%s\nwant:\n%s", strings.Join(state, "\n"), wantState)
	}
}

// The scaffolded pipeline.hcl runs as the README says: publish the sample
// events, run until idle on the embedded server, read the totals and the
// dead letter.
func TestInitPipelineRunsEndToEnd(t *testing.T) {
	bin := scaffoldCLI(t)
	dir := initAndBuild(t, bin, scaffold.Go)
	// Another port than the default 4222, which other runs may hold.
	server := fmt.Sprintf("\nserver {\n  embedded_port = %d\n}\n", testutil.FreePort(t))
	f, err := os.OpenFile(filepath.Join(dir, "pipeline.hcl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(server); err != nil {
		t.Fatal(err)
	}
	f.Close()
	mustInProject(t, dir, bin, "validate", "pipeline.hcl")
	mustInProject(t, dir, bin, "publish", "--config", "pipeline.hcl", "--subject", "payments.in", "events.jsonl")
	logs := mustInProject(t, dir, bin, "run", "pipeline.hcl", "--stop-when-idle", "2s")
	if !strings.Contains(logs, "pipeline stopped: read=4 processed=3 emitted=3 dead_lettered=1") {
		t.Errorf("run did not process the 4 events as expected:\n%s", logs)
	}
	totals := mustInProject(t, dir, bin, "read", "--config", "pipeline.hcl", "--subject", "totals.out")
	want := `1 totals.out {"account":"acct-1","cents":1200,"total":1200}
2 totals.out {"account":"acct-2","cents":500,"total":500}
3 totals.out {"account":"acct-1","cents":900,"total":2100}`
	if got := strings.TrimSpace(totals); got != want {
		t.Errorf("totals.out:\n%s\nwant:\n%s", got, want)
	}
	dlq := mustInProject(t, dir, bin, "read", "--config", "pipeline.hcl", "--subject", "wasmstream.dlq.>", "--headers")
	if !strings.Contains(dlq, `wasmstream.dlq.pay-totals.pay-totals {"account":"acct-2","cents":-5}`) || !strings.Contains(dlq, "negative cents -5") {
		t.Errorf("dead letters:\n%s", dlq)
	}
}

// rootOutput runs the CLI in this process.
func rootOutput(args ...string) (string, error) {
	root := newRootCommand()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func TestInitCommandRefusals(t *testing.T) {
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "main.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"init", "--lang", "zig", "x", "--dir", t.TempDir()}, `--lang: unknown language "zig": choose one of go, rust, c, assemblyscript`},
		{[]string{"init", "Pay", "--dir", t.TempDir()}, `invalid project name: "Pay" must start with a lower-case letter`},
		{[]string{"init", "pay", "--dir", full}, "directory is not empty: " + full + " holds main.go; choose a new directory with --dir, or add --force"},
		{[]string{"init"}, "accepts 1 arg(s), received 0"},
	}
	for _, tt := range tests {
		_, err := rootOutput(tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("wasmstream %s: %v, want an error with %q", strings.Join(tt.args, " "), err, tt.want)
		}
	}
}

func TestInitCommandPrintsTheNextSteps(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pay")
	out, err := rootOutput("init", "--lang", "c", "pay", "--dir", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`created C operator "pay" in ` + dir, "  src/operator.c\n", "  wasmstream-sdk/ (the C SDK, 6 files)", "cd " + dir, "wasmstream build"} {
		if !strings.Contains(out, want) {
			t.Errorf("init printed no %q:\n%s", want, out)
		}
	}
}

func TestBuildCommandNamesTheMissingToolchain(t *testing.T) {
	dir := t.TempDir()
	if _, err := rootOutput("init", "--lang", "go", "pay", "--dir", dir); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	_, err := rootOutput("build", dir)
	if err == nil || !strings.Contains(err.Error(), "toolchain missing: Go needs the go command") {
		t.Fatalf("build without go: %v", err)
	}
	if _, err := rootOutput("build", t.TempDir()); err == nil || !strings.Contains(err.Error(), "no operator project in") {
		t.Fatalf("build of an empty directory: %v", err)
	}
}
