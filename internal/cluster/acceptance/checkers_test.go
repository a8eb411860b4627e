package acceptance

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// out is the sum2 output of key's seq-th record with the state of n
// records applied.
func out(key string, seq, n int64) sumOutput {
	return sumOutput{K: key, V: seq, Sum: n * (n + 1) / 2, Count: n}
}

// The per-key checker finds each way the outputs of a key can go wrong.
func TestCheckPerKey(t *testing.T) {
	want := map[string]int64{"a": 3, "b": 2}
	for _, tc := range []struct {
		name  string
		outs  []sumOutput
		check func(perKeyReport) bool
	}{
		{"all once in order, keys interleaved",
			[]sumOutput{out("a", 1, 1), out("b", 1, 1), out("a", 2, 2), out("b", 2, 2), out("a", 3, 3)},
			func(r perKeyReport) bool { return r.ok(false) }},
		{"one missing",
			[]sumOutput{out("a", 1, 1), out("a", 3, 3), out("b", 1, 1), out("b", 2, 2)},
			func(r perKeyReport) bool { return r.missing == 1 && !r.ok(true) }},
		{"a key without outputs",
			[]sumOutput{out("a", 1, 1), out("a", 2, 2), out("a", 3, 3)},
			func(r perKeyReport) bool { return r.missing == 2 }},
		{"one repeated",
			[]sumOutput{out("a", 1, 1), out("a", 2, 2), out("a", 2, 2), out("a", 3, 3), out("b", 1, 1), out("b", 2, 2)},
			func(r perKeyReport) bool { return r.repeated == 1 && r.missing == 0 && !r.ok(true) }},
		{"a record applied twice: later counts are one ahead",
			[]sumOutput{out("a", 1, 1), out("a", 2, 3), out("a", 3, 4), out("b", 1, 1), out("b", 2, 2)},
			func(r perKeyReport) bool { return r.wrongState == 2 && r.missing == 0 && !r.ok(true) }},
		{"order inverted",
			[]sumOutput{out("a", 2, 2), out("a", 1, 1), out("a", 3, 3), out("b", 1, 1), out("b", 2, 2)},
			func(r perKeyReport) bool { return r.inversions == 1 && !r.ok(false) && r.ok(true) }},
		{"beyond the key's records and an unknown key",
			[]sumOutput{out("a", 1, 1), out("a", 2, 2), out("a", 3, 3), out("a", 4, 4), out("b", 1, 1), out("b", 2, 2), out("c", 1, 1)},
			func(r perKeyReport) bool { return r.outOfRange == 2 && !r.ok(true) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := checkPerKey(tc.outs, want); !tc.check(r) {
				t.Errorf("%s\n%s", r, indent(r.examples))
			}
		})
	}
}

// The output accounting tells lost, repeated, foreign and wrong outputs
// apart.
func TestCheckOutputs(t *testing.T) {
	m := newModel()
	m.add(event{key: "a", seq: 1}, 1)
	m.add(event{key: "a", seq: 2}, 2)
	m.add(event{key: "b", seq: 1}, 3)
	stored := func(seq uint64, id, data string) storedMsg { return storedMsg{seq: seq, msgID: id, data: []byte(data)} }
	a1 := `{"k":"a","input":0,"v":1,"sum":1,"count":1}`
	a2 := `{"k":"a","input":0,"v":2,"sum":3,"count":2}`
	b1 := `{"k":"b","input":0,"v":1,"sum":1,"count":1}`
	for _, tc := range []struct {
		name  string
		msgs  []storedMsg
		check func(outputReport) bool
	}{
		{"exactly the model", []storedMsg{stored(1, outputID(1), a1), stored(2, outputID(3), b1), stored(3, outputID(2), a2)},
			func(r outputReport) bool { return r.ok() }},
		{"lost", []storedMsg{stored(1, outputID(1), a1), stored(2, outputID(2), a2)},
			func(r outputReport) bool { return r.lost == 1 && !r.ok() }},
		{"same id twice", []storedMsg{stored(1, outputID(1), a1), stored(2, outputID(1), a1), stored(3, outputID(2), a2), stored(4, outputID(3), b1)},
			func(r outputReport) bool { return r.duplicates == 1 && r.lost == 0 && !r.ok() }},
		{"same payload under another id", []storedMsg{stored(1, outputID(1), a1), stored(2, outputID(2), a2), stored(3, outputID(3), b1), stored(4, "x.sum.events.9.0", a1)},
			func(r outputReport) bool { return r.unexpected == 1 && r.sameEffect == 1 && !r.ok() }},
		{"payload differs", []storedMsg{stored(1, outputID(1), a1), stored(2, outputID(2), a1), stored(3, outputID(3), b1)},
			func(r outputReport) bool { return r.differing == 1 && r.sameEffect == 1 && !r.ok() }},
		{"not an output", []storedMsg{stored(1, outputID(1), a1), stored(2, outputID(2), a2), stored(3, outputID(3), `{"k":"b","extra":1}`)},
			func(r outputReport) bool { return r.undecodable == 1 && r.lost == 1 && !r.ok() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r, _ := checkOutputs(tc.msgs, m); !tc.check(r) {
				t.Errorf("%s\n%s", r, indent(r.examples))
			}
		})
	}
}

// The pipeline file the workers get is valid in both sink modes, declares
// the streams the test creates, and names what the output ids are built
// from. A transactional sink's output stream is created allowing atomic
// batches, as a worker requires of it.
func TestPipelineFileMatchesTheHarness(t *testing.T) {
	for _, mode := range []string{"", config.ModeTransactional} {
		t.Run(orIdempotent(mode), func(t *testing.T) { checkPipelineFile(t, mode) })
	}
	if got, want := outputID(7), "accept.sum.events.7.0"; got != want {
		t.Errorf("outputID(7) = %q, want %q", got, want)
	}
}

func checkPipelineFile(t *testing.T, mode string) {
	dir := t.TempDir()
	file := pipelineFile{urls: "nats://127.0.0.1:4222,nats://127.0.0.1:4223,nats://127.0.0.1:4224",
		dataDir: filepath.Join(dir, "w0"), module: filepath.Join(dir, "sum2.wasm"), mode: mode}
	cfg, diags, err := config.Parse([]byte(file.hcl()), filepath.Join(dir, "w0.hcl"))
	if err != nil {
		t.Fatalf("the workers' pipeline file does not load: %v\n%v\n%s", err, diags, file.hcl())
	}
	if cfg.Name != pipelineName || cfg.DataDir != file.dataDir {
		t.Errorf("name %q, data_dir %q; want %q, %q", cfg.Name, cfg.DataDir, pipelineName, file.dataDir)
	}
	if got := fmt.Sprintf("%s/%s", cfg.Cluster.WorkerTimeout, cfg.Cluster.LeaseTTL); got != workerTimeout+"/"+leaseTTL {
		t.Errorf("cluster worker_timeout/lease_ttl = %s, want %s/%s (workerTimeout, leaseTTL)", got, workerTimeout, leaseTTL)
	}
	if cfg.Cluster.Replicas != replicas {
		t.Errorf("cluster replicas %d; the test creates the control bucket with %d", cfg.Cluster.Replicas, replicas)
	}
	for _, want := range streamConfigs(mode) {
		s := cfg.Stream(want.Name)
		if s == nil || !slices.Equal(s.Subjects, want.Subjects) || s.Replicas != want.Replicas || s.DuplicateWindow != want.Duplicates {
			t.Errorf("stream %s in the pipeline file: %+v; the test creates %v R%d window %s", want.Name, s, want.Subjects, want.Replicas, want.Duplicates)
		}
	}
	if atomic := streamConfigs(mode)[1].AllowAtomicPublish; atomic != (mode == config.ModeTransactional) {
		t.Errorf("output stream allows atomic publish: %v, sink mode %q", atomic, mode)
	}
	op := cfg.Operator(operatorName)
	if op == nil || op.Parallelism != parallelism || op.MaxParallelism != maxParallelism || len(op.Inputs) != 1 || op.Inputs[0] != sourceName {
		t.Errorf("operator %s: %+v", operatorName, op)
	}
	if sk := cfg.Sink(sinkName); sk == nil || sk.Mode != orIdempotent(mode) || sk.Subject != outputSubject {
		t.Errorf("sink %s: %+v, want mode %s", sinkName, sk, orIdempotent(mode))
	}
}
