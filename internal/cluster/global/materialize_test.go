package global_test

import (
	"bytes"
	"cmp"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// The two workers' dead-letter lists in the fixture: each task checkpoint
// ships its worker's list.
const (
	deadLettersA  = `[{"source":"orders","sequence":7},{"source":"orders","sequence":3}]`
	deadLettersB  = `[{"source":"orders","sequence":3},{"source":"orders","sequence":12}]`
	deadLettersAB = `[{"source":"orders","sequence":3},{"source":"orders","sequence":7},{"source":"orders","sequence":12}]`
)

// uploaded is the fixture of a cluster checkpoint in a real bucket: the
// state of 4 tasks in src, tasks 0 and 1 uploaded as worker a (at source
// position 100), tasks 2 and 3 as worker b (at 90), each with its
// worker's dead-letter list.
type uploaded struct {
	obs  jetstream.ObjectStore
	src  *state.Store
	acks []global.Ack
}

func upload4(t *testing.T) uploaded {
	t.Helper()
	obs := objectStore(t)
	src := openStore(t, t.TempDir())
	fill(t, src, 400)
	a, b := ack("a", 100), ack("b", 90)
	putDeadLetters(t, src, deadLettersA)
	sa := shipper(t, obs)
	a.Tasks = []global.TaskPart{upload(t, sa, src, "a", 0, 100), upload(t, sa, src, "a", 1, 100)}
	putDeadLetters(t, src, deadLettersB)
	sb := shipper(t, obs)
	b.Tasks = []global.TaskPart{upload(t, sb, src, "b", 2, 90), upload(t, sb, src, "b", 3, 90)}
	return uploaded{obs: obs, src: src, acks: []global.Ack{a, b}}
}

// A worker given tasks 1 and 3 materializes a local checkpoint with
// exactly their state, the union of the dead-letter lists it read, and
// the whole cut in its manifest; the scratch DB is gone afterwards.
func TestMaterializeRoundTrip(t *testing.T) {
	u := upload4(t)
	m := assemble(t, u.acks...)
	root, scratch := t.TempDir(), t.TempDir()
	written, err := global.Materialize(testCtx(t), shipper(t, u.obs), m, map[string][]int{testOp: {3, 1}}, root, scratch)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkpoint.Verify(root, 1); err != nil {
		t.Fatal(err)
	}
	read, err := checkpoint.Read(root, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(read, written) {
		t.Fatalf("the manifest read back differs from the one returned")
	}
	if !reflect.DeepEqual(read.Operators, m.Checkpoint.Operators) || !reflect.DeepEqual(read.Sources, m.Checkpoint.Sources) ||
		read.Sources[0].LastSequence != 90 {
		t.Fatalf("the local manifest lost the cut: %+v %+v", read.Operators, read.Sources)
	}
	dst := restored(t, root)
	for i := range testTasks {
		want := map[string]string{}
		if i == 1 || i == 3 {
			want = stateOf(t, u.src.DB(), testRange(i))
		}
		if got := stateOf(t, dst.DB(), testRange(i)); !reflect.DeepEqual(got, want) || (len(want) == 0) != (i%2 == 0) {
			t.Errorf("task %d: %d keys, want %d", i, len(got), len(want))
		}
	}
	dl, ok, err := dst.GetMeta(deadLetters)
	if err != nil || !ok || string(dl) != deadLettersAB {
		t.Errorf("dead letters %s (%t, %v), want the union %s", dl, ok, err, deadLettersAB)
	}
	if left, _ := os.ReadDir(scratch); len(left) != 0 {
		t.Errorf("scratch holds %d entries after Materialize", len(left))
	}
}

// restored copies the local checkpoint's state as the engine's restore
// does and opens it.
func restored(t *testing.T, root string) *state.Store {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "live")
	if err := checkpoint.RestoreState(root, 1, dir); err != nil {
		t.Fatal(err)
	}
	return openStore(t, dir)
}

// Owning one worker's tasks only gives that worker's dead-letter list.
func TestMaterializeDeadLettersOfPartsRead(t *testing.T) {
	u := upload4(t)
	root := t.TempDir()
	if _, err := global.Materialize(testCtx(t), shipper(t, u.obs), assemble(t, u.acks...), map[string][]int{testOp: {2}}, root, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	want, _ := global.MergeDeadLetterLists([][]byte{[]byte(deadLettersB)})
	if dl, _, _ := restored(t, root).GetMeta(deadLetters); !bytes.Equal(dl, want) {
		t.Fatalf("dead letters %s, want worker b's %s", dl, want)
	}
}

func TestMaterializeRefuses(t *testing.T) {
	u := upload4(t)
	s, m := shipper(t, u.obs), assemble(t, u.acks...)
	for _, tc := range []struct {
		name  string
		owned map[string][]int
		says  string
	}{
		{"unknown task", map[string][]int{testOp: {4}}, "task 4"},
		{"task twice", map[string][]int{testOp: {1, 1}}, "named twice"},
		{"unknown operator", map[string][]int{"other": {0}}, `operator "other"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			_, err := global.Materialize(testCtx(t), s, m, tc.owned, root, t.TempDir())
			testutil.WantErr(t, err, global.ErrInvalid, tc.says, "cluster checkpoint 1")
			if ids, _ := checkpoint.List(root); len(ids) != 0 {
				t.Fatalf("a refused Materialize wrote checkpoints %v", ids)
			}
		})
	}
	// A part that references another task's manifest (its hash is right)
	// would restore the wrong keys.
	t.Run("wrong task manifest", func(t *testing.T) {
		a, b := u.acks[0], u.acks[1]
		a.Tasks = []global.TaskPart{a.Tasks[0], a.Tasks[1]}
		a.Tasks[1].Object, a.Tasks[1].SHA256 = b.Tasks[0].Object, b.Tasks[0].SHA256
		b.Tasks = []global.TaskPart{b.Tasks[1], part("b", 2, 90)}
		b.Tasks[1].Object, b.Tasks[1].SHA256 = u.acks[0].Tasks[1].Object, u.acks[0].Tasks[1].SHA256
		_, err := global.Materialize(testCtx(t), s, assemble(t, a, b), map[string][]int{testOp: {1}}, t.TempDir(), t.TempDir())
		testutil.WantErr(t, err, global.ErrCorrupt, "task 1 range [32,64)", "describes operator \"risk\" task 2")
	})
}

// Verify reads every object of every task checkpoint: a flipped byte in
// any one is reported naming it.
func TestVerify(t *testing.T) {
	u := upload4(t)
	s, m := shipper(t, u.obs), assemble(t, u.acks...)
	if err := global.Verify(testCtx(t), s, m); err != nil {
		t.Fatal(err)
	}
	tm, err := s.FetchManifest(testCtx(t), m.Tasks[2].Object, m.Tasks[2].SHA256)
	if err != nil {
		t.Fatal(err)
	}
	largest := slices.MaxFunc(tm.Files, func(a, b ship.File) int { return cmp.Compare(a.Size, b.Size) })
	object := ship.ObjectName(largest.SHA256)
	flip(t, u.obs, object)
	err = global.Verify(testCtx(t), s, m)
	testutil.WantErr(t, err, ship.ErrDamaged, object, "cluster checkpoint 1")

	flip(t, u.obs, m.Tasks[0].Object)
	err = global.Verify(testCtx(t), s, m)
	testutil.WantErr(t, err, ship.ErrDamaged, m.Tasks[0].Object, "of 4 task checkpoints bad")
	if !errors.Is(err, ship.ErrDamaged) {
		t.Fatal(err)
	}
}

// flip replaces object with its bytes with one bit flipped, through a put
// under the same name: the Object Store's own digest matches the damaged
// bytes, only the content address can tell.
func flip(t *testing.T, obs jetstream.ObjectStore, object string) {
	t.Helper()
	data, err := obs.GetBytes(testCtx(t), object)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x10
	if _, err := obs.PutBytes(testCtx(t), object, data); err != nil {
		t.Fatal(err)
	}
}

// Under another parallelism a worker restores ranges across the
// checkpoint's tasks: one range merging tasks 1 and 2 (scale-in) and half
// of task 3 (scale-out) hold exactly those key groups' state.
func TestMaterializeRanges(t *testing.T) {
	u := upload4(t)
	m := assemble(t, u.acks...)
	r1, r2, r3 := testRange(1), testRange(2), testRange(3)
	merged := state.KeyGroupRange{Start: r1.Start, End: r2.End}
	half := state.KeyGroupRange{Start: r3.Start, End: (r3.Start + r3.End) / 2}
	root := t.TempDir()
	owned := map[string][]state.KeyGroupRange{testOp: {half, merged}}
	if _, err := global.MaterializeRanges(testCtx(t), shipper(t, u.obs), m, owned, root, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	dst := restored(t, root)
	for _, r := range []state.KeyGroupRange{merged, half} {
		want := stateOf(t, u.src.DB(), r)
		if got := stateOf(t, dst.DB(), r); len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("range %s: %d keys, want %d", r, len(got), len(want))
		}
	}
	for _, r := range []state.KeyGroupRange{testRange(0), {Start: half.End, End: r3.End}} {
		if got := stateOf(t, dst.DB(), r); len(got) != 0 {
			t.Errorf("range %s: %d keys restored, want none", r, len(got))
		}
	}
	bad := map[string][]state.KeyGroupRange{testOp: {merged, {Start: r2.Start, End: r3.End}}}
	if _, err := global.MaterializeRanges(testCtx(t), shipper(t, u.obs), m, bad, t.TempDir(), t.TempDir()); !errors.Is(err, global.ErrInvalid) {
		t.Errorf("overlapping ranges: %v, want ErrInvalid", err)
	}
}
