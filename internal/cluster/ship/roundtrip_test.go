package ship_test

import (
	"reflect"
	"testing"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/internal/cluster/ship"

	"github.com/wasmstream/wasmstream/internal/state"
)

// formatVersionKey is the metadata entry every state store holds.
var formatVersionKey = map[string]string{"mformat_version": ""}

// A task checkpoint uploaded from one store restores into a fresh store
// (another machine: another Shipper with its own cache) with exactly the
// task's keys and values, its own staged outputs and nothing else, though
// Pebble's restricted checkpoint holds keys of other tasks.
func TestRoundTripOneTask(t *testing.T) {
	_, obs := objectStore(t)
	src := openStore(t)
	fill(t, src, 4000, 1024, 1)
	settle(t, src.DB())
	snap, up := snapshotUpload(t, shipper(t, obs), src, 1, "ckpt/1-g1/w-a-a1/risk-32.json")

	other := shipper(t, obs)
	m, err := other.FetchManifest(testCtx(t), up.ManifestObject, up.ManifestSHA256)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, up.Manifest) {
		t.Fatalf("fetched manifest differs from the uploaded one:\n%+v\n%+v", m, up.Manifest)
	}
	r := task(1).Range
	dst, res, err := restoreInto(t, other, []ship.TaskManifest{m}, r)
	if err != nil {
		t.Fatal(err)
	}
	checkRestored(t, src.DB(), dst.DB(), r, res.Keys)
	if len(res.Meta) != 1 || res.Meta[0].Name != deadLetters || string(res.Meta[0].Value) != `[{"source":"s","sequence":5}]` {
		t.Errorf("meta = %+v, want the dead-letter list", res.Meta)
	}
	if res.OutboxKeys != 1 || res.Downloaded != uniqueBytes(m) {
		t.Errorf("outbox keys %d, downloaded %d of %d bytes", res.OutboxKeys, res.Downloaded, up.BytesTotal)
	}
	t.Logf("task 1: %d files, %d bytes uploaded; restored %d keys, %d bytes; the checkpoint holds %d keys outside the task's spans",
		up.FilesTotal, up.BytesUploaded, res.Keys, res.Bytes, outsideKeys(t, snap.Dir, r))
}

// checkRestored compares dst with the state of r in src: equal state, the
// one staged output of the task starting r, and no other key.
func checkRestored(t *testing.T, src, dst *pebble.DB, r state.KeyGroupRange, keys int64) {
	t.Helper()
	want := stateOf(t, src, testOp, r)
	if len(want) == 0 || int64(len(want)) != keys {
		t.Fatalf("%d keys in the range, restore reports %d", len(want), keys)
	}
	if err := equalMaps(stateOf(t, dst, testOp, r), want); err != nil {
		t.Errorf("restored state of %s: %v", r, err)
	}
	outbox := outboxOf(t, dst)
	if len(outbox) != 1 {
		t.Errorf("restored %d staged outputs, want the task's 1", len(outbox))
	}
	if rest := without(dump(t, dst, nil, nil), want, outbox, formatVersionKey); len(rest) != 0 {
		t.Errorf("restore wrote %d keys outside the range", len(rest))
	}
}

// outsideKeys counts the keys of the checkpoint in dir outside the state
// span of r and the outbox: Pebble keeps whole table files, the reason
// restores read inside their spans only.
func outsideKeys(t *testing.T, dir string, r state.KeyGroupRange) int {
	t.Helper()
	db, err := pebble.Open(dir, &pebble.Options{ReadOnly: true, Logger: quiet{}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	all := dump(t, db, nil, nil)
	return len(without(all, stateOf(t, db, testOp, r), outboxOf(t, db), formatVersionKey))
}
