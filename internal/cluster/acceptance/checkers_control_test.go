package acceptance

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
)

// Control records as the workers write them, for the checkers' tests.
func pendingRec(seq, n, gen uint64) ctlMsg {
	b, _ := json.Marshal(ctlrec.Pending{Version: ctlrec.Version, Checkpoint: n, Generation: gen, Assignment: 1})
	return ctlMsg{seq: seq, key: ctlrec.PendingKey, data: b}
}

func completedRec(seq, n, gen uint64, key string) ctlMsg {
	b, _ := json.Marshal(ctlrec.Completed{Version: ctlrec.Version, Checkpoint: n, Generation: gen, Assignment: 1,
		Manifest: "ckpt/MANIFEST.json", SHA256: strings.Repeat("ab", 32)})
	return ctlMsg{seq: seq, key: key, data: b}
}

func completionRec(seq, n, gen uint64) ctlMsg {
	return completedRec(seq, n, gen, ctlrec.CompletedKey(n))
}

func latestRec(seq, n, gen uint64) ctlMsg { return completedRec(seq, n, gen, ctlrec.LatestKey) }

func assignmentRec(t *testing.T, seq, epoch, gen uint64) ctlMsg {
	b, err := assign.Encode(assign.Assignment{Epoch: epoch, Generation: gen, Operators: []assign.OperatorTasks{
		{Name: operatorName, MaxParallelism: maxParallelism, Tasks: []assign.Task{{Range: assign.Range{Start: 0, End: maxParallelism}, Worker: "w0"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	return ctlMsg{seq: seq, key: assign.Key, data: b}
}

func leaseRec(seq uint64, holder, token string) ctlMsg {
	b, _ := json.Marshal(map[string]string{"holder": holder, "token": token})
	return ctlMsg{seq: seq, key: "coordinator", data: b}
}

// The control-history checker finds each broken invariant, and passes a
// takeover done right.
func TestCheckControl(t *testing.T) {
	takeover := []ctlMsg{
		leaseRec(1, "w0", "a"), assignmentRec(t, 2, 1, 1), pendingRec(3, 1, 1), completionRec(4, 1, 1), latestRec(5, 1, 1),
		pendingRec(6, 2, 1), {seq: 7, key: "coordinator", op: "MaxAge"}, leaseRec(8, "w1", "b"),
		assignmentRec(t, 9, 2, 8), pendingRec(10, 3, 8), completionRec(11, 3, 8), latestRec(12, 3, 8),
	}
	for _, tc := range []struct {
		name  string
		msgs  []ctlMsg
		check func(controlReport) bool
	}{
		{"a takeover with an aborted claim", takeover,
			func(r controlReport) bool {
				return r.ok() && r.completions == 2 && len(r.generations) == 2 && r.missed == 0
			}},
		{"a gap is counted",
			[]ctlMsg{pendingRec(1, 1, 1), completionRec(5, 1, 1)},
			func(r controlReport) bool { return r.ok() && r.missed == 3 }},
		{"a completion whose claim the recorder missed in a gap is unverifiable, not wrong",
			[]ctlMsg{pendingRec(1, 1, 1), completionRec(2, 1, 1), completionRec(6, 3, 1)},
			func(r controlReport) bool { return r.ok() && r.unverifiable == 1 && r.missed == 3 }},
		{"without a gap the same completion is wrong",
			[]ctlMsg{pendingRec(1, 1, 1), completionRec(2, 1, 1), completionRec(3, 3, 1)},
			func(r controlReport) bool { return r.completedUnclaim == 1 && !r.ok() }},
		{"a checkpoint completed twice",
			[]ctlMsg{pendingRec(1, 1, 1), completionRec(2, 1, 1), completionRec(3, 1, 1)},
			func(r controlReport) bool { return r.completedTwice == 1 && !r.ok() }},
		{"a zombie's completion after the new generation's claim",
			[]ctlMsg{pendingRec(1, 1, 1), pendingRec(2, 2, 5), completionRec(3, 1, 1)},
			func(r controlReport) bool { return r.olderGeneration == 1 && r.completedUnclaim == 1 && !r.ok() }},
		{"a claim not after the previous one",
			[]ctlMsg{pendingRec(1, 4, 1), pendingRec(2, 4, 5)},
			func(r controlReport) bool { return r.pendingBack == 1 && !r.ok() }},
		{"latest naming no completion",
			[]ctlMsg{pendingRec(1, 1, 1), latestRec(2, 1, 1)},
			func(r controlReport) bool { return r.latestUnknown == 1 && !r.ok() }},
		{"an assignment epoch repeated",
			[]ctlMsg{assignmentRec(t, 1, 3, 1), assignmentRec(t, 2, 3, 1)},
			func(r controlReport) bool { return r.epochBack == 1 && !r.ok() }},
		{"an undecodable record",
			[]ctlMsg{{seq: 1, key: ctlrec.PendingKey, data: []byte(`{"version":1}`)}},
			func(r controlReport) bool { return r.undecodable == 1 && !r.ok() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := checkControl(tc.msgs); !tc.check(r) {
				t.Errorf("%s\n%s", r, indent(r.examples))
			}
		})
	}
	if n := afterFirstOf(takeover, 1, 8); n != 0 {
		t.Errorf("afterFirstOf of a clean takeover = %d", n)
	}
	zombie := append(append([]ctlMsg(nil), takeover...), pendingRec(13, 2, 1), leaseRec(14, "w0", "a"))
	if n := afterFirstOf(zombie, 1, 8); n != 1 {
		t.Errorf("afterFirstOf with a zombie claim = %d, want 1", n)
	}
	if n := renewalsAfter(zombie, "w0", 1, 8); n != 1 {
		t.Errorf("renewalsAfter with a zombie renewal = %d, want 1", n)
	}
	if n := renewalsAfter(takeover, "w0", 1, 8); n != 0 {
		t.Errorf("renewalsAfter of a clean takeover = %d", n)
	}
}

// The visibility checker tells whole batches from broken ones and outputs
// visible in time from early ones.
func TestCheckVisibility(t *testing.T) {
	m := newModel()
	m.add(event{key: "a", seq: 1}, 1)
	m.add(event{key: "a", seq: 2}, 2)
	m.add(event{key: "b", seq: 1}, 3)
	t0 := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	all := []rangePosition{{start: 0, end: maxParallelism, pos: 3}}
	done := []completion{{n: 2, stamp: at(10), ranges: all}}
	batch := func(seq uint64, id string, bseq int, commit bool, stamp int) storedMsg {
		return storedMsg{seq: seq, msgID: outputID(seq), stamp: at(stamp), batch: batchHeaders{id: id, seq: bseq, commit: commit}}
	}
	for _, tc := range []struct {
		name   string
		stored []storedMsg
		raw    []rawMsg
		done   []completion
		check  func(visibilityReport) bool
	}{
		{"one whole batch after its checkpoint",
			[]storedMsg{batch(1, "x", 1, false, 11), batch(2, "x", 2, false, 11), batch(3, "x", 3, true, 11)},
			[]rawMsg{{msgID: outputID(1), at: at(11)}}, done,
			func(r visibilityReport) bool { return r.ok() && r.batches == 1 }},
		{"stored before the checkpoint completed",
			[]storedMsg{batch(1, "x", 1, false, 9), batch(2, "x", 2, true, 9), batch(3, "y", 1, true, 12)}, nil, done,
			func(r visibilityReport) bool { return r.early == 2 && r.batches == 2 && !r.ok() }},
		{"published before it",
			[]storedMsg{batch(1, "x", 1, true, 11)}, []rawMsg{{msgID: outputID(1), at: at(5)}}, done,
			func(r visibilityReport) bool { return r.rawEarly == 1 && !r.ok() }},
		{"the checkpoint does not cover the input",
			[]storedMsg{batch(3, "x", 1, true, 11)}, nil, []completion{{n: 2, stamp: at(10), ranges: []rangePosition{{start: 0, end: maxParallelism, pos: 2}}}},
			func(r visibilityReport) bool { return r.early == 1 && !r.ok() }},
		{"a batch without its commit",
			[]storedMsg{batch(1, "x", 1, false, 11), batch(2, "x", 2, false, 11)}, nil, done,
			func(r visibilityReport) bool { return r.broken == 1 && !r.ok() }},
		{"a batch interleaved with another",
			[]storedMsg{batch(1, "x", 1, false, 11), batch(2, "y", 1, true, 11), batch(3, "x", 2, true, 11)}, nil, done,
			func(r visibilityReport) bool { return r.broken == 1 && r.batches == 1 && !r.ok() }},
		{"outside a batch is only counted",
			[]storedMsg{batch(1, "x", 1, true, 11), {seq: 2, msgID: outputID(2), stamp: at(11)}}, nil, done,
			func(r visibilityReport) bool { return r.ok() && r.unbatched == 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := checkVisibility(tc.stored, tc.raw, tc.done, m); !tc.check(r) {
				t.Errorf("%s\n%s", r, indent(r.examples))
			}
		})
	}
}

// The log reader finds records by message and reads their fields, as
// hclog writes them.
func TestLogLine(t *testing.T) {
	raw := `2025-06-01T10:00:01.234+0200 [INFO]  wasmstream: cluster checkpoint completed: checkpoint=12 generation=3 workers=3 duration=41.5ms bytes=9000 bytes_new=12 note="a b" list=[w0 w1]`
	l, ok := parseLogLine(raw)
	if !ok || !l.is(logCompleted) || l.is("cluster checkpoint") {
		t.Fatalf("parseLogLine: %v, is: %v", ok, l.is(logCompleted))
	}
	if want := time.Date(2025, 6, 1, 8, 0, 1, 234e6, time.UTC); !l.at.Equal(want) {
		t.Errorf("at %s, want %s", l.at, want)
	}
	c, err := parseCompleted(l, "w0")
	if err != nil || c.n != 12 || c.bytes != 9000 || c.bytesNew != 12 || !c.start.Equal(l.at.Add(-41500*time.Microsecond)) {
		t.Errorf("parseCompleted: %+v, %v", c, err)
	}
	if v, _ := l.field("note"); v != "a b" {
		t.Errorf("note = %q", v)
	}
	if _, ok := l.field("generatio"); ok {
		t.Error("a field found by a prefix of its name")
	}
	elected, _ := parseLogLine(`2025-06-01T10:00:01.234+0200 [INFO]  wasmstream: coordinator elected: worker=w1 generation=40`)
	if g, err := elected.uint("generation"); !elected.is(logElected) || err != nil || g != 40 {
		t.Errorf("coordinator elected: generation %d, %v", g, err)
	}
	lost, _ := parseLogLine(`2025-06-01T10:00:01.234+0200 [WARN]  wasmstream: membership lease lost: this worker stopped its tasks and joins again: worker=w1`)
	if !lost.is(logMembershipLost) {
		t.Error("membership lease lost not found")
	}
	if _, ok := parseLogLine("  | a continued value"); ok {
		t.Error("a continuation line parsed as a record")
	}
	if seq, ok := inputOf(outputID(77)); !ok || seq != 77 {
		t.Errorf("inputOf(%s) = %d, %v", outputID(77), seq, ok)
	}
}
