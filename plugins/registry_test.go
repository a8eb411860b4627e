package plugins

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/natsio"
)

// Every refused upload leaves the registry as it was: no bucket before the
// first good push, no object after it.
func TestPushRefusesBadModulesAndStoresNothing(t *testing.T) {
	r := newTestRegistry(t)
	ctx := testCtx(t)
	pushAllBad := func() {
		for _, tc := range badModules(t) {
			reg := NewRegistry(r.conn, Options{Limits: tc.lim})
			_, err := reg.Push(ctx, "risk", tc.wasm, Meta{})
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), `operator "risk"`) {
				t.Errorf("%s: got %v, want %v naming the operator", tc.name, err, tc.kind)
			}
		}
		if _, err := r.Push(ctx, "bad name", fixture(t, "good.wasm"), Meta{}); !errors.Is(err, ErrName) {
			t.Errorf("bad name: got %v, want ErrName", err)
		}
	}
	pushAllBad()
	if _, err := r.conn.OpenObjectStore(ctx, DefaultBucket); !errors.Is(err, natsio.ErrObjectStoreNotFound) {
		t.Fatalf("refused pushes created the bucket: %v", err)
	}
	good := mustPush(t, r, "risk", fixture(t, "good.wasm"))
	pushAllBad()
	list, err := r.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Hash != good.Hash {
		t.Fatalf("after refused pushes the registry holds %v, want only %s", list, good)
	}
}

func TestPushListInspectGetRemoveRoundTrip(t *testing.T) {
	r := newTestRegistry(t)
	ctx := testCtx(t)
	wasm := fixture(t, "good.wasm")
	e, err := r.Push(ctx, "risk", wasm, Meta{Description: "payment risk totals"})
	if err != nil {
		t.Fatal(err)
	}
	if e.AlreadyStored || e.Name != "risk" || e.Hash != HashBytes(wasm) || e.Size != int64(len(wasm)) ||
		e.ABIVersion != 1 || e.Description != "payment risk totals" || e.PushedAt.IsZero() || len(e.Imports) != 2 {
		t.Fatalf("pushed entry %+v", e)
	}

	list, err := r.List(ctx)
	if err != nil || len(list) != 1 || list[0].Hash != e.Hash || !list[0].PushedAt.Equal(e.PushedAt) || list[0].Description != e.Description {
		t.Fatalf("list %+v, %v", list, err)
	}
	for _, ref := range []string{"risk", "risk@" + e.Hash[:8], "risk@" + e.ShortHash(), "risk@" + strings.ToUpper(e.Hash)} {
		got, err := r.Resolve(ctx, mustRef(t, ref))
		if err != nil || got.Hash != e.Hash || got.MemoryMinPages != 2 {
			t.Fatalf("resolve %s: %+v, %v", ref, got, err)
		}
	}
	b, got, err := r.Get(ctx, mustRef(t, "risk"))
	if err != nil || !bytes.Equal(b, wasm) || got.Hash != e.Hash {
		t.Fatalf("get: %d bytes, %+v, %v", len(b), got, err)
	}

	removed, err := r.Remove(ctx, mustRef(t, "risk@"+e.Hash[:8]), RemoveOptions{})
	if err != nil || len(removed) != 1 || removed[0].Hash != e.Hash {
		t.Fatalf("remove: %v, %v", removed, err)
	}
	if list, err := r.List(ctx); err != nil || len(list) != 0 {
		t.Fatalf("after remove: %v, %v", list, err)
	}
	if _, _, err := r.Get(ctx, mustRef(t, "risk")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get after remove: %v", err)
	}
	// The same bytes can come back after a removal.
	if again := mustPush(t, r, "risk", wasm); again.AlreadyStored {
		t.Fatal("a removed version counted as already stored")
	}
}

// The Go example operator goes through the registry whole (3-4 MB: many
// object chunks).
func TestRoundTripGoGuest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the Go example operator")
	}
	r := newTestRegistry(t)
	wasm := goGuest(t)
	e := mustPush(t, r, "payment-risk", wasm)
	b, _, err := r.Get(testCtx(t), e.Ref())
	if err != nil || !bytes.Equal(b, wasm) {
		t.Fatalf("get: %d of %d bytes, %v", len(b), len(wasm), err)
	}
}

func TestPushSameBytesIsIdempotent(t *testing.T) {
	r := newTestRegistry(t)
	ctx := testCtx(t)
	first := mustPush(t, r, "risk", fixture(t, "good.wasm"))
	second, err := r.Push(ctx, "risk", fixture(t, "good.wasm"), Meta{Description: "ignored"})
	if err != nil {
		t.Fatal(err)
	}
	if !second.AlreadyStored || second.Hash != first.Hash || !second.PushedAt.Equal(first.PushedAt) || second.Description != "" {
		t.Fatalf("second push %+v, want the first entry marked AlreadyStored", second)
	}
	// The same bytes under another name are another operator.
	other := mustPush(t, r, "risk-copy", fixture(t, "good.wasm"))
	if other.AlreadyStored {
		t.Fatal("a push under a new name reported AlreadyStored")
	}
	if list, err := r.List(ctx); err != nil || len(list) != 2 {
		t.Fatalf("list %v, %v; want 2 entries", list, err)
	}
}

func TestNameResolvesToNewest(t *testing.T) {
	r := newTestRegistry(t)
	ctx := testCtx(t)
	v1 := mustPush(t, r, "risk", variant(t, 1))
	v2 := mustPush(t, r, "risk", variant(t, 2))
	v3 := mustPush(t, r, "risk", variant(t, 3))
	mustPush(t, r, "other", variant(t, 4))
	// Re-pushing an old version does not make it the newest.
	if e := mustPush(t, r, "risk", variant(t, 1)); !e.AlreadyStored {
		t.Fatal("re-push of v1 was not idempotent")
	}
	if got, err := r.Resolve(ctx, mustRef(t, "risk")); err != nil || got.Hash != v3.Hash {
		t.Fatalf("risk resolved to %v, %v; want v3 %s", got, err, v3)
	}
	list, err := r.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, e := range list {
		order = append(order, e.String())
	}
	want := []string{"other@" + HashBytes(variant(t, 4))[:12], v3.String(), v2.String(), v1.String()}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Fatalf("list order %v, want %v", order, want)
	}
	if _, err := r.Remove(ctx, v3.Ref(), RemoveOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, err := r.Resolve(ctx, mustRef(t, "risk")); err != nil || got.Hash != v2.Hash {
		t.Fatalf("after removing v3, risk resolved to %v, %v; want v2", got, err)
	}
}

func TestResolveNotFoundListsCandidates(t *testing.T) {
	r := newTestRegistry(t)
	ctx := testCtx(t)
	_, err := r.Resolve(ctx, mustRef(t, "risk"))
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "registry is empty") || !strings.Contains(err.Error(), "operator push") {
		t.Fatalf("empty registry: %v", err)
	}
	v1 := mustPush(t, r, "risk", variant(t, 1))
	v2 := mustPush(t, r, "risk", variant(t, 2))
	mustPush(t, r, "limits", variant(t, 3))

	_, err = r.Resolve(ctx, mustRef(t, "nope"))
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "limits, risk") {
		t.Fatalf("unknown name: %v", err)
	}
	absent := "00000000"
	if strings.HasPrefix(v1.Hash, absent) || strings.HasPrefix(v2.Hash, absent) {
		absent = "ffffffff"
	}
	_, err = r.Resolve(ctx, mustRef(t, "risk@"+absent))
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), v1.Hash) || !strings.Contains(err.Error(), v2.Hash) {
		t.Fatalf("unknown version: %v", err)
	}
	// A full hash of another operator's version is not this one's.
	other := HashBytes(variant(t, 3))
	if _, err := r.Resolve(ctx, mustRef(t, "risk@"+other)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("risk@<limits' hash>: %v", err)
	}
	if _, err := r.Resolve(ctx, Ref{Path: "x.wasm"}); !errors.Is(err, ErrLocalRef) {
		t.Fatalf("local ref: %v", err)
	}
}

func TestAmbiguousPrefix(t *testing.T) {
	a, b := clashingVariants(t, MinHashPrefix)
	r := newTestRegistry(t)
	ctx := testCtx(t)
	ea := mustPush(t, r, "risk", variant(t, a))
	eb := mustPush(t, r, "risk", variant(t, b))
	prefix := ea.Hash[:MinHashPrefix]
	_, err := r.Resolve(ctx, mustRef(t, "risk@"+prefix))
	if !errors.Is(err, ErrAmbiguous) || !strings.Contains(err.Error(), ea.Hash) || !strings.Contains(err.Error(), eb.Hash) {
		t.Fatalf("ambiguous prefix %s: %v", prefix, err)
	}
	// A longer prefix tells them apart.
	n := commonPrefix(ea.Hash, eb.Hash) + 1
	for _, e := range []Entry{ea, eb} {
		got, err := r.Resolve(ctx, mustRef(t, "risk@"+e.Hash[:n]))
		if err != nil || got.Hash != e.Hash {
			t.Fatalf("risk@%s: %v, %v", e.Hash[:n], got, err)
		}
	}
	// Removing by an ambiguous prefix removes nothing.
	if _, err := r.Remove(ctx, mustRef(t, "risk@"+prefix), RemoveOptions{}); !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("remove by ambiguous prefix: %v", err)
	}
	if list, _ := r.List(ctx); len(list) != 2 {
		t.Fatalf("%d entries left, want 2", len(list))
	}
}

// clashingVariants finds two variants whose hashes share their first n hex
// digits (a birthday search: about 2^(2n) tries for n digits).
func clashingVariants(t testing.TB, n int) (uint64, uint64) {
	t.Helper()
	good := fixture(t, "good.wasm")
	seen := map[string]uint64{}
	for i := uint64(0); i < 1<<22; i++ {
		p := HashBytes(variantOf(good, i))[:n]
		if j, ok := seen[p]; ok {
			return j, i
		}
		seen[p] = i
	}
	t.Fatal("no clash found")
	return 0, 0
}

func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

func TestRemoveAllVersionsNeedsTheOption(t *testing.T) {
	r := newTestRegistry(t)
	ctx := testCtx(t)
	mustPush(t, r, "risk", variant(t, 1))
	mustPush(t, r, "risk", variant(t, 2))
	keep := mustPush(t, r, "limits", variant(t, 3))
	_, err := r.Remove(ctx, mustRef(t, "risk"), RemoveOptions{})
	if !errors.Is(err, ErrAllVersions) || !strings.Contains(err.Error(), "NAME@HASH") || !strings.Contains(err.Error(), "--all-versions") {
		t.Fatalf("remove risk without AllVersions: %v", err)
	}
	if list, _ := r.List(ctx); len(list) != 3 {
		t.Fatalf("a refused remove removed something: %d left", len(list))
	}
	removed, err := r.Remove(ctx, mustRef(t, "risk"), RemoveOptions{AllVersions: true})
	if err != nil || len(removed) != 2 {
		t.Fatalf("remove all: %v, %v", removed, err)
	}
	list, err := r.List(ctx)
	if err != nil || len(list) != 1 || list[0].Hash != keep.Hash {
		t.Fatalf("after remove all: %v, %v; want only %s", list, err, keep)
	}
	if _, err := r.Remove(ctx, mustRef(t, "risk"), RemoveOptions{AllVersions: true}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("remove of a removed name: %v", err)
	}
}

// The registry survives its server: a new embedded server on the same
// store sees what was pushed (file storage).
func TestRegistryPersistsAcrossServerRestart(t *testing.T) {
	dir := t.TempDir()
	conn := embeddedAt(t, dir)
	e := mustPush(t, NewRegistry(conn, Options{}), "risk", fixture(t, "good.wasm"))
	conn.Close()
	r := NewRegistry(embeddedAt(t, dir), Options{})
	got, err := r.Resolve(testCtx(t), mustRef(t, "risk"))
	if err != nil || got.Hash != e.Hash || !got.PushedAt.Equal(e.PushedAt) {
		t.Fatalf("after restart: %+v, %v", got, err)
	}
}

func TestBucketOption(t *testing.T) {
	conn := embedded(t)
	a := NewRegistry(conn, Options{Bucket: "team-a"})
	b := NewRegistry(conn, Options{})
	mustPush(t, a, "risk", fixture(t, "good.wasm"))
	if list, err := b.List(testCtx(t)); err != nil || len(list) != 0 {
		t.Fatalf("default bucket sees another bucket's operator: %v, %v", list, err)
	}
	if a.Bucket() != "team-a" || b.Bucket() != DefaultBucket {
		t.Fatalf("buckets %s %s", a.Bucket(), b.Bucket())
	}
}
