package global_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/protocol"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// Two workers' acks make one cut: every task's entry, the lowest source
// position, the task checkpoints as the files, and a manifest that passes
// checkpoint's own validation.
func TestAssemble(t *testing.T) {
	a, b := ack("a", 100, 0, 1), ack("b", 90, 3, 2) // b lists its tasks out of order
	b.Tasks[0].Entry.Unaligned = true
	m := assemble(t, b, a)

	cp := m.Checkpoint
	if cp.ID != 1 || m.Generation != 1 || m.Assignment != 1 || !slices.Equal(m.Workers, []string{"a", "b"}) {
		t.Fatalf("checkpoint %d generation %d assignment %d workers %q", cp.ID, m.Generation, m.Assignment, m.Workers)
	}
	if len(cp.Sources) != 1 || cp.Sources[0].LastSequence != 90 {
		t.Fatalf("sources %+v, want orders at the lower position 90", cp.Sources)
	}
	want := []global.TaskPart{a.Tasks[0], a.Tasks[1], b.Tasks[1], b.Tasks[0]}
	if !reflect.DeepEqual(m.Tasks, want) {
		t.Fatalf("tasks:\n%+v\nwant\n%+v", m.Tasks, want)
	}
	if len(cp.Operators) != 1 || len(cp.Operators[0].Tasks) != testTasks || cp.Operators[0].ModuleSHA256 != info().ModuleSHA256 {
		t.Fatalf("operators %+v", cp.Operators)
	}
	for i, e := range cp.Operators[0].Tasks {
		if !reflect.DeepEqual(e, want[i].Entry) {
			t.Errorf("task %d entry %+v, want %+v", i, e, want[i].Entry)
		}
	}
	if len(cp.Files) != testTasks || cp.Files[0].Path != a.Tasks[0].Object || cp.Files[0].SHA256 != a.Tasks[0].SHA256 {
		t.Errorf("files %+v, want the task manifests", cp.Files)
	}
	wantMetrics := checkpoint.Metrics{DurationNanos: 1e9, AlignmentNanos: 30, MaxPauseNanos: 4000,
		BytesTotal: 4000, BytesNew: 400, Mode: protocol.Unaligned.String()}
	if cp.Metrics != wantMetrics || cp.Config != template().Config || !cp.Created.Equal(created) {
		t.Errorf("metrics %+v config %q created %s, want %+v", cp.Metrics, cp.Config, cp.Created, wantMetrics)
	}
	if _, err := checkpoint.Encode(cp); err != nil {
		t.Fatalf("checkpoint's validation: %v", err)
	}
}

// A task whose entry the engine split into sub-ranges (positions that
// differ across its key groups) has one part per sub-range, sharing its
// task checkpoint; the cut lists every sub-range.
func TestAssembleSplitEntry(t *testing.T) {
	b := ack("b", 90, 2, 3)
	lo, hi := b.Tasks[1], b.Tasks[1]
	lo.Entry.End, hi.Entry.Start = 100, 100
	hi.Entry.Inputs = map[string]uint64{testSource: 95}
	b.Tasks = []global.TaskPart{b.Tasks[0], lo, hi}
	m := assemble(t, ack("a", 100, 0, 1), b)
	if n := len(m.Checkpoint.Operators[0].Tasks); n != 5 || len(m.Checkpoint.Files) != 4 || m.Checkpoint.Metrics.BytesTotal != 4000 {
		t.Fatalf("%d entries, %d files, %d bytes: want 5 entries of 4 task checkpoints", n, len(m.Checkpoint.Files), m.Checkpoint.Metrics.BytesTotal)
	}
}

// Acks that cannot make one cut are refused with an error naming the
// worker, operator or ranges concerned.
func TestAssembleRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(a, b *global.Ack)
		want   error
		says   []string
	}{
		{"missing range", func(a, b *global.Ack) { b.Tasks = b.Tasks[:1] }, global.ErrNotCovered, []string{`operator "risk"`, "[96,128)"}},
		{"overlap", func(a, b *global.Ack) { b.Tasks = append(b.Tasks, part("b", 1, 90)) },
			global.ErrNotCovered, []string{`operator "risk"`, "[32,64)", `worker "a"`, `worker "b"`, "overlaps"}},
		{"gap inside", func(a, b *global.Ack) { a.Tasks[1].Entry.End = 60 }, global.ErrNotCovered, []string{"[60,64)"}},
		{"numbering", func(a, b *global.Ack) { a.Tasks[0].Index, a.Tasks[1].Index = 1, 0 }, global.ErrNotCovered, []string{"should be task 0"}},
		{"object twice", func(a, b *global.Ack) { b.Tasks[0].Object = a.Tasks[0].Object }, global.ErrConflict, []string{a0Object()}},
		{"other checkpoint", func(a, b *global.Ack) { b.Checkpoint = 2 }, global.ErrStale, []string{`worker "b"`, "checkpoint 2"}},
		{"other generation", func(a, b *global.Ack) { b.Generation = 2 }, global.ErrStale, []string{`worker "b"`, "generation 2"}},
		{"other assignment", func(a, b *global.Ack) { a.Assignment = 3 }, global.ErrStale, []string{`worker "a"`, "assignment 3"}},
		{"operator info", func(a, b *global.Ack) { b.Operators[0].ModuleSHA256 = "cd" + b.Operators[0].ModuleSHA256[2:] },
			global.ErrConflict, []string{`operator "risk"`, `worker "a"`, `worker "b"`}},
		{"state versions", func(a, b *global.Ack) { b.Operators[0].StateVersions = map[string]int32{"count": 2} },
			global.ErrConflict, []string{`operator "risk"`}},
		{"source stream", func(a, b *global.Ack) { b.Sources[0].StreamCreated = b.Sources[0].StreamCreated.Add(1) },
			global.ErrConflict, []string{`source "orders"`, `worker "b"`}},
		{"worker twice", func(a, b *global.Ack) { b.Worker = "a" }, global.ErrConflict, []string{`worker "a" acked twice`}},
		{"unknown input", func(a, b *global.Ack) { b.Tasks[0].Entry.Inputs = map[string]uint64{"payments": 3} },
			global.ErrInvalid, []string{`input "payments"`}},
		{"invalid ack", func(a, b *global.Ack) { b.Tasks[0].SHA256 = "x" }, global.ErrInvalid, []string{`worker "b"`, "sha256"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := ack("a", 100, 0, 1), ack("b", 90, 2, 3)
			tc.change(&a, &b)
			_, err := global.Assemble(1, 1, 1, template(), []global.Ack{a, b})
			testutil.WantErr(t, err, tc.want, append(tc.says, "cluster checkpoint 1")...)
		})
	}
	t.Run("no acks", func(t *testing.T) {
		_, err := global.Assemble(1, 1, 1, template(), nil)
		testutil.WantErr(t, err, global.ErrInvalid, "no acks")
	})
	t.Run("no created time", func(t *testing.T) {
		_, err := global.Assemble(1, 1, 1, checkpoint.Manifest{}, []global.Ack{ack("a", 1, 0, 1, 2, 3)})
		testutil.WantErr(t, err, checkpoint.ErrCorruptManifest, "created")
	})
}

func a0Object() string { return part("a", 0, 0).Object }

// Each source resumes at the lowest position any worker reported, per
// source; a source only one worker reads keeps that worker's position.
func TestAssembleSourceMinimum(t *testing.T) {
	a, b, c := ack("a", 70, 0), ack("b", 50, 1, 2), ack("c", 60, 3)
	extra := checkpoint.SourcePosition{Name: "prices", Stream: "PRICES", StreamCreated: streamCreated, LastSequence: 9}
	c.Sources = append(c.Sources, extra)
	m := assemble(t, a, b, c)
	want := []checkpoint.SourcePosition{{Name: testSource, Stream: "ORDERS", StreamCreated: streamCreated, LastSequence: 50}, extra}
	if !reflect.DeepEqual(m.Checkpoint.Sources, want) {
		t.Fatalf("sources %+v, want %+v", m.Checkpoint.Sources, want)
	}
}
