package config

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/wasmstream/wasmstream/internal/protocol"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the .golden files of testdata/diagnostics")

// TestDiagnosticsGolden loads every file of testdata/diagnostics and compares all its
// diagnostics, in order and word for word, with the .golden file beside it. The absolute
// directory of the test data is written $DIR so that the files do not depend on the checkout.
func TestDiagnosticsGolden(t *testing.T) {
	t.Setenv("WASMSTREAM_TEST_UNSET_VARIABLE", "")
	os.Unsetenv("WASMSTREAM_TEST_UNSET_VARIABLE")
	files, err := filepath.Glob("testdata/diagnostics/*.hcl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	dir, err := filepath.Abs("testdata/diagnostics")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			p, diags, err := Load(file)
			checkContract(t, p, diags, err)
			got := strings.ReplaceAll(diags.Error(), dir, "$DIR") + "\n"
			golden := strings.TrimSuffix(file, ".hcl") + ".golden"
			if *rewrite {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestDiagnosticsGolden -rewrite to create it)", err)
			}
			if got != string(want) {
				t.Errorf("diagnostics differ from %s\n--- got\n%s--- want\n%s", golden, got, want)
			}
		})
	}
}

// checkContract asserts what Parse promises whatever the input.
func checkContract(t *testing.T, p *Pipeline, diags Diagnostics, err error) {
	t.Helper()
	if (err != nil) != diags.HasErrors() {
		t.Fatalf("err = %v but diagnostics have errors = %v", err, diags.HasErrors())
	}
	if (p == nil) != (err != nil) {
		t.Fatalf("pipeline = %v with err = %v", p != nil, err)
	}
	if err == nil {
		return
	}
	if err.Error() != diags.Errors().Error() {
		t.Fatalf("err prints\n%s\nwant the error diagnostics\n%s", err, diags.Errors())
	}
	if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrRead) {
		t.Fatalf("err wraps neither ErrInvalid nor ErrRead: %v", err)
	}
}

// TestMultipleErrorsReportedTogether guards against stopping at the first problem: one file with
// problems in every block reports each of them.
func TestMultipleErrorsReportedTogether(t *testing.T) {
	_, diags, err := Load("testdata/diagnostics/values.hcl")
	if err == nil {
		t.Fatal("values.hcl loaded without error")
	}
	for _, want := range []string{`name: "Payment Risk"`, `log: format:`, `stream "IN": storage:`,
		`source "in": start_sequence:`, `operator "risk": parallelism:`, `operator "over": parallelism:`,
		`operator "small": key: subject_token:`, `sink "exact": mode:`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing a diagnostic containing %q", want)
		}
	}
	if n := len(diags.Errors()); n < 30 {
		t.Errorf("%d errors, want every one of the 30+ problems in values.hcl", n)
	}
}

func TestLoadValid(t *testing.T) {
	t.Setenv("WASMSTREAM_TEST_PASSWORD", "s3cret")
	dir, err := filepath.Abs("testdata/valid")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file string
		want func(dir string) *Pipeline
	}{
		{"full.hcl", wantFull},
		{"minimal.hcl", wantMinimal},
		{"functions.hcl", wantFunctions},
		{"unaligned.hcl", wantUnaligned},
		{"cluster.hcl", wantCluster},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata/valid", tc.file)
			p, diags, err := Load(path)
			if err != nil || len(diags) > 0 {
				t.Fatalf("Load: %v, diagnostics:\n%v", err, diags)
			}
			src, _ := os.ReadFile(path)
			want := tc.want(dir)
			want.Dir, want.Text = dir, string(src)
			comparePipelines(t, p, want)
		})
	}
}

// comparePipelines compares field by field so that a failure says which object differs.
// Ranges are compared by their start line only: columns are covered by the golden tests.
func comparePipelines(t *testing.T, got, want *Pipeline) {
	t.Helper()
	clearRanges(got)
	clearRanges(want)
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"Name", got.Name, want.Name}, {"DataDir", got.DataDir, want.DataDir}, {"Dir", got.Dir, want.Dir},
		{"Server", got.Server, want.Server}, {"Log", got.Log, want.Log}, {"Checkpoint", got.Checkpoint, want.Checkpoint},
		{"Cluster", got.Cluster, want.Cluster},
		{"Streams", got.Streams, want.Streams},
		{"Sources", got.Sources, want.Sources}, {"Operators", got.Operators, want.Operators},
		{"Sinks", got.Sinks, want.Sinks}, {"Text", got.Text, want.Text},
	} {
		if !reflect.DeepEqual(f.got, f.want) {
			t.Errorf("%s:\n got  %+v\n want %+v", f.name, f.got, f.want)
		}
	}
}

// clearRanges keeps only the line of each range, which the expected values spell out.
func clearRanges(p *Pipeline) {
	line := func(r *hcl.Range) { *r = hcl.Range{Start: hcl.Pos{Line: r.Start.Line}} }
	line(&p.Checkpoint.Range)
	line(&p.Cluster.Range)
	for i := range p.Streams {
		line(&p.Streams[i].Range)
	}
	for i := range p.Sources {
		line(&p.Sources[i].Range)
	}
	for i := range p.Operators {
		line(&p.Operators[i].Range)
		line(&p.Operators[i].ModuleRange)
	}
	for i := range p.Sinks {
		line(&p.Sinks[i].Range)
	}
}

func at(line int) hcl.Range { return hcl.Range{Start: hcl.Pos{Line: line}} }

func wantFull(dir string) *Pipeline {
	return &Pipeline{
		Name:    "payment-risk",
		DataDir: filepath.Join(dir, "state"),
		Server: Server{URL: "nats://127.0.0.1:4222", Credentials: filepath.Join(dir, "secrets/risk.creds"), EmbeddedPort: 4222,
			OutageBudget: DefaultOutageBudget},
		Log: Log{Format: "json", Level: "debug"},
		Checkpoint: Checkpoint{Interval: 30 * time.Second, Timeout: 5 * time.Minute, MinPause: time.Second,
			Mode: protocol.Aligned, AlignmentTimeout: 10 * time.Second, Retain: 5, Range: at(15)},
		Cluster: Cluster{Replicas: 5, WorkerTimeout: 4 * time.Second, LeaseTTL: 12 * time.Second, Stabilization: time.Second, Range: at(24)},
		Streams: []Stream{
			{Name: "PAYMENTS", Subjects: []string{"payments.>"}, DuplicateWindow: 2 * time.Minute, Storage: "file", Retention: "limits", Replicas: 3, Range: at(31)},
			{Name: "RISK", Subjects: []string{"risk.>"}, Storage: "memory", Retention: "limits", Replicas: 1, Range: at(38)},
		},
		Sources: []Source{{Name: "payments", Stream: "PAYMENTS", Subject: "payments.in", StartSequence: 100, Range: at(43)}},
		Operators: []Operator{{
			Name:              "risk",
			Module:            filepath.Join(dir, "operator/risk.wasm"),
			StateVersion:      "3",
			Inputs:            []string{"payments"},
			Key:               Key{JSONField: "account.id"},
			Parallelism:       4,
			MaxParallelism:    256,
			Config:            []byte(`{"dedup":true}`),
			Outputs:           map[string]string{"out": "risk-totals", "alerts": "risk-alerts"},
			DeadLetterSubject: "wasmstream.dlq.payment-risk.risk",
			Limits:            Limits{MemoryPages: 1024, BatchTimeout: 2 * time.Second, BatchSize: 256, MaxValueBytes: 65536, MaxEmitsPerRecord: 8, MaxTableElements: 5000},
			Range:             at(49),
			ModuleRange:       at(50),
		}},
		Sinks: []Sink{
			{Name: "risk-totals", Subject: "risk.totals", Mode: "at_least_once", BatchSize: 1000, Range: at(72)},
			{Name: "risk-alerts", Subject: "risk.alerts", Mode: "idempotent", BatchSize: 1000, Range: at(77)},
		},
	}
}

// wantMinimal spells out every default.
func wantMinimal(dir string) *Pipeline {
	return &Pipeline{
		Name:       "minimal",
		DataDir:    filepath.Join(dir, "data"),
		Server:     Server{EmbeddedPort: 4222, OutageBudget: DefaultOutageBudget},
		Log:        Log{Format: "text", Level: "info"},
		Checkpoint: Checkpoint{Interval: 5 * time.Second, Timeout: 10 * time.Minute, Mode: protocol.Aligned, Retain: 3},
		Cluster:    Cluster{Replicas: 3, WorkerTimeout: 5 * time.Second, LeaseTTL: 15 * time.Second, Stabilization: 2 * time.Second},
		Streams: []Stream{
			{Name: "IN", Subjects: []string{"in.>"}, Storage: "file", Retention: "limits", Replicas: 1, Range: at(4)},
			{Name: "COUNTS", Subjects: []string{"counts.>"}, Storage: "file", Retention: "limits", Replicas: 1, Range: at(8)},
		},
		Sources: []Source{{Name: "in", Stream: "IN", StartSequence: 1, Range: at(12)}},
		Operators: []Operator{{
			Name:              "count",
			Module:            filepath.Join(dir, "count.wasm"),
			Inputs:            []string{"in"},
			Key:               Key{SubjectToken: 2},
			Parallelism:       1,
			MaxParallelism:    128,
			Outputs:           map[string]string{"out": "counts"},
			DeadLetterSubject: "wasmstream.dlq.minimal.count",
			Limits:            Limits{MemoryPages: 512, BatchTimeout: 5 * time.Second, BatchSize: 512, MaxValueBytes: 1 << 20, MaxEmitsPerRecord: 64, MaxTableElements: 100_000},
			Range:             at(16),
			ModuleRange:       at(17),
		}},
		Sinks: []Sink{{Name: "counts", Subject: "counts.out", Mode: "idempotent", BatchSize: 1000, Range: at(25)}},
	}
}

func wantFunctions(dir string) *Pipeline {
	config := []byte("{\"threshold\": 1000}\n")
	op := func(name, module string, key Key, line int) Operator {
		return Operator{
			Name: name, Module: module, Inputs: []string{"payments"}, Key: key,
			Parallelism: 1, MaxParallelism: 128, Config: config,
			Outputs:           map[string]string{"out": "totals"},
			DeadLetterSubject: "wasmstream.dlq.functions." + name,
			Limits:            defaultLimits(),
			Range:             at(line),
			ModuleRange:       at(line + 1),
		}
	}
	return &Pipeline{
		Name:    "functions",
		DataDir: filepath.Join(dir, "data"),
		Server: Server{URL: "nats://10.0.0.1:4222,nats://10.0.0.2:4222", User: "risk", Password: "s3cret",
			EmbeddedPort: 4222, OutageBudget: DefaultOutageBudget},
		Log:        Log{Format: "text", Level: "info"},
		Checkpoint: defaultCheckpoint(),
		Cluster:    defaultCluster(),
		Sources:    []Source{{Name: "payments", Stream: "PAYMENTS", StartSequence: 1, Range: at(10)}},
		Operators: []Operator{
			op("from-file", "/opt/operators/risk.wasm", Key{Header: "Account"}, 14),
			op("from-config-file", filepath.Join(dir, "risk.wasm"), Key{JSONField: "account"}, 24),
		},
		Sinks: []Sink{{Name: "totals", Subject: "risk.totals", Mode: "idempotent", BatchSize: 1000, Range: at(34)}},
	}
}

// wantUnaligned: an unaligned checkpoint block that leaves timeout out, and a state version.
func wantUnaligned(dir string) *Pipeline {
	source := func(name string, line int) Source {
		return Source{Name: name, Stream: "IN", Subject: "in." + name, StartSequence: 1, Range: at(line)}
	}
	return &Pipeline{
		Name:       "unaligned",
		DataDir:    filepath.Join(dir, "data"),
		Server:     Server{EmbeddedPort: 4222, OutageBudget: DefaultOutageBudget},
		Log:        Log{Format: "text", Level: "info"},
		Checkpoint: Checkpoint{Timeout: 10 * time.Minute, MinPause: 250 * time.Millisecond, Mode: protocol.Unaligned, Retain: 1, Range: at(5)},
		Cluster:    defaultCluster(),
		Streams:    []Stream{{Name: "IN", Subjects: []string{"in.>", "out.>"}, Storage: "file", Retention: "limits", Replicas: 1, Range: at(12)}},
		Sources:    []Source{source("left", 16), source("right", 21)},
		Operators: []Operator{{
			Name:              "join",
			Module:            filepath.Join(dir, "join.wasm"),
			StateVersion:      "orders-v3.1_x",
			Inputs:            []string{"left", "right"},
			Key:               Key{Header: "Order-Id"},
			Parallelism:       1,
			MaxParallelism:    128,
			Outputs:           map[string]string{"out": "joined"},
			DeadLetterSubject: "wasmstream.dlq.unaligned.join",
			Limits:            defaultLimits(),
			Range:             at(26),
			ModuleRange:       at(27),
		}},
		Sinks: []Sink{{Name: "joined", Subject: "out.joined", Mode: "idempotent", BatchSize: 1000, Range: at(36)}},
	}
}

// wantCluster: a pipeline for `wasmstream worker`, every cluster setting written.
func wantCluster(dir string) *Pipeline {
	return &Pipeline{
		Name:       "cluster",
		DataDir:    filepath.Join(dir, "data"),
		Server:     Server{URL: "nats://n1:4222,nats://n2:4222,nats://n3:4222", EmbeddedPort: 4222, OutageBudget: DefaultOutageBudget},
		Log:        Log{Format: "text", Level: "info"},
		Checkpoint: defaultCheckpoint(),
		Cluster:    Cluster{Replicas: 5, WorkerTimeout: 3 * time.Second, LeaseTTL: 20 * time.Second, Stabilization: 0, Range: at(8)},
		Streams:    []Stream{{Name: "IN", Subjects: []string{"in.>", "out.>"}, Storage: "file", Retention: "limits", Replicas: 3, Range: at(15)}},
		Sources:    []Source{{Name: "in", Stream: "IN", Subject: "in.>", StartSequence: 1, Range: at(20)}},
		Operators: []Operator{{
			Name:              "count",
			Module:            filepath.Join(dir, "count.wasm"),
			Inputs:            []string{"in"},
			Key:               Key{JSONField: "id"},
			Parallelism:       6,
			MaxParallelism:    128,
			Outputs:           map[string]string{"out": "out"},
			DeadLetterSubject: "wasmstream.dlq.cluster.count",
			Limits:            defaultLimits(),
			Range:             at(25),
			ModuleRange:       at(26),
		}},
		Sinks: []Sink{{Name: "out", Subject: "out.counts", Mode: "idempotent", BatchSize: 1000, Range: at(35)}},
	}
}

// TestDefaultsMatchConstants ties the minimal file's expected values to the exported defaults,
// so that changing a default without updating the expectations fails.
func TestDefaultsMatchConstants(t *testing.T) {
	op := wantMinimal("/").Operators[0]
	if op.Parallelism != DefaultParallelism || op.MaxParallelism != DefaultMaxParallelism ||
		op.Limits != defaultLimits() || DefaultMemoryPages*wasmPageBytes != 32<<20 {
		t.Errorf("defaults out of step: %+v", op)
	}
	if c := wantMinimal("/").Checkpoint; c != defaultCheckpoint() {
		t.Errorf("checkpoint defaults out of step: %+v, want %+v", c, defaultCheckpoint())
	}
	if c := wantMinimal("/").Cluster; c != defaultCluster() {
		t.Errorf("cluster defaults out of step: %+v, want %+v", c, defaultCluster())
	}
}

func TestLoadUnreadable(t *testing.T) {
	for _, tc := range []struct {
		path  string
		is    error
		wantS string
	}{
		{"testdata/no-such.hcl", fs.ErrNotExist, "testdata/no-such.hcl: cannot read the pipeline config: no such file or directory"},
		{"testdata", ErrRead, "testdata: cannot read the pipeline config: not a regular file"},
	} {
		p, diags, err := Load(tc.path)
		checkContract(t, p, diags, err)
		if err == nil || err.Error() != tc.wantS {
			t.Errorf("Load(%s) = %v, want %s", tc.path, err, tc.wantS)
		}
		if !errors.Is(err, tc.is) || !errors.Is(err, ErrRead) {
			t.Errorf("Load(%s): %v does not wrap %v and ErrRead", tc.path, err, tc.is)
		}
	}
}

// TestParseRelativeToFilename checks that Parse resolves paths against the directory of the
// name it is given, not the working directory.
func TestParseRelativeToFilename(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "guest.json"), []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("testdata/valid/minimal.hcl")
	if err != nil {
		t.Fatal(err)
	}
	src = []byte(strings.Replace(string(src), `outputs = { out = "counts" }`,
		`outputs = { out = "counts" }`+"\n  config_file = \"guest.json\"", 1))
	p, _, err := Parse(src, filepath.Join(dir, "pipeline.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Dir != dir || p.DataDir != filepath.Join(dir, "data") || p.Operators[0].Module != filepath.Join(dir, "count.wasm") {
		t.Errorf("paths not resolved against %s: %+v", dir, p)
	}
	if string(p.Operators[0].Config) != `{"a":1}` {
		t.Errorf("config_file read %q", p.Operators[0].Config)
	}
}

func TestLookups(t *testing.T) {
	p, _, err := Load("testdata/valid/full.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if p.Stream("RISK") != &p.Streams[1] || p.Source("payments") != &p.Sources[0] ||
		p.Operator("risk") != &p.Operators[0] || p.Sink("risk-alerts") != &p.Sinks[1] {
		t.Error("a lookup did not return the declared object")
	}
	if p.Stream("risk") != nil || p.Source("x") != nil || p.Operator("") != nil || p.Sink("risk.totals") != nil {
		t.Error("a lookup of an undeclared name returned an object")
	}
}
