package ship_test

import (
	"errors"
	"testing"

	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/state"
)

// uploadTasks fills a store and uploads the checkpoints of tasks.
func uploadTasks(t *testing.T, tasks ...int) (*state.Store, []ship.TaskManifest, *ship.Shipper) {
	t.Helper()
	_, obs := objectStore(t)
	src := openStore(t)
	fill(t, src, 4000, 512, 4)
	settle(t, src.DB())
	up := shipper(t, obs)
	var ms []ship.TaskManifest
	for _, i := range tasks {
		_, res := snapshotUpload(t, up, src, i, "ckpt/1/risk-"+task(i).Range.String()+".json")
		ms = append(ms, res.Manifest)
	}
	return src, ms, shipper(t, obs)
}

// A scale-in merges the ranges of tasks 1 and 2 into one: both staged
// outputs, both dead-letter lists, every key of [32, 96) and nothing else.
func TestRestoreMergesTwoTasks(t *testing.T) {
	src, ms, s := uploadTasks(t, 1, 2)
	r := state.KeyGroupRange{Start: task(1).Range.Start, End: task(2).Range.End}
	// The manifests of another task and operator are passed too: Restore
	// picks the ones that overlap.
	dst, res, err := restoreInto(t, s, append([]ship.TaskManifest{ms[1], otherOperator(ms[0])}, ms[0]), r)
	if err != nil {
		t.Fatal(err)
	}
	want := stateOf(t, src.DB(), testOp, r)
	if err := equalMaps(stateOf(t, dst.DB(), testOp, r), want); err != nil {
		t.Fatalf("merged state: %v", err)
	}
	outbox := outboxOf(t, dst.DB())
	if res.Checkpoints != 2 || len(outbox) != 2 || len(res.Meta) != 2 || res.Keys != int64(len(want)) {
		t.Fatalf("read %d checkpoints, restored %d staged outputs, %d meta values, %d keys (want 2, 2, 2, %d)",
			res.Checkpoints, len(outbox), len(res.Meta), res.Keys, len(want))
	}
	if rest := without(dump(t, dst.DB(), nil, nil), want, outbox, formatVersionKey); len(rest) != 0 {
		t.Fatalf("restore wrote %d keys outside the range", len(rest))
	}
}

// A scale-out restores part of one task's range; the task's staged
// outputs go to the owner of its first key group only.
func TestRestoreSubRange(t *testing.T) {
	src, ms, s := uploadTasks(t, 1)
	for _, tc := range []struct {
		r      state.KeyGroupRange
		outbox int
	}{{state.KeyGroupRange{Start: 32, End: 40}, 1}, {state.KeyGroupRange{Start: 40, End: 64}, 0}} {
		dst, res, err := restoreInto(t, s, ms, tc.r)
		if err != nil {
			t.Fatal(err)
		}
		want := stateOf(t, src.DB(), testOp, tc.r)
		if err := equalMaps(stateOf(t, dst.DB(), testOp, tc.r), want); err != nil || res.OutboxKeys != int64(tc.outbox) {
			t.Fatalf("range %s: state %v, %d staged outputs (want %d)", tc.r, err, res.OutboxKeys, tc.outbox)
		}
		if rest := without(dump(t, dst.DB(), nil, nil), want, outboxOf(t, dst.DB()), formatVersionKey); len(rest) != 0 {
			t.Fatalf("range %s: %d keys outside", tc.r, len(rest))
		}
	}
}

// Manifests that leave a gap or give key groups twice, and a target that
// already has state, are refused before anything is written.
func TestRestoreRefuses(t *testing.T) {
	src, ms, s := uploadTasks(t, 1, 2)
	merged := state.KeyGroupRange{Start: 32, End: 96}
	for _, tc := range []struct {
		name string
		ms   []ship.TaskManifest
		r    state.KeyGroupRange
		want error
	}{
		{"gap", ms[:1], merged, ship.ErrNotCovered},
		{"twice", []ship.TaskManifest{ms[0], ms[0]}, task(1).Range, ship.ErrNotCovered},
		{"none", nil, task(1).Range, ship.ErrNotCovered},
		{"other max parallelism", []ship.TaskManifest{withMaxPar(ms[0], 256)}, task(1).Range, ship.ErrIncompatible},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst, _, err := restoreInto(t, s, tc.ms, tc.r)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if n := len(dump(t, dst.DB(), nil, nil)); n != 1 {
				t.Fatalf("a refused restore wrote %d keys", n-1)
			}
		})
	}
	t.Run("not empty", func(t *testing.T) {
		target := ship.Target{DB: src.DB(), Operator: testOp, MaxParallelism: testMaxPar, Range: task(1).Range}
		if _, err := s.Restore(testCtx(t), ms, target); !errors.Is(err, ship.ErrTargetNotEmpty) {
			t.Fatalf("got %v, want ErrTargetNotEmpty", err)
		}
		want := stateOf(t, src.DB(), testOp, task(1).Range)
		changeKeys(t, src, 1, 3)
		target.Replace = true
		if _, err := s.Restore(testCtx(t), ms, target); err != nil {
			t.Fatal(err)
		}
		if err := equalMaps(stateOf(t, src.DB(), testOp, task(1).Range), want); err != nil {
			t.Fatalf("Replace: %v", err)
		}
	})
}

func otherOperator(m ship.TaskManifest) ship.TaskManifest {
	m.Operator = otherOp
	return m
}

func withMaxPar(m ship.TaskManifest, maxPar int) ship.TaskManifest {
	m.MaxParallelism = maxPar
	return m
}
