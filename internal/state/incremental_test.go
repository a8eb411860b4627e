package state

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
	"time"
)

// commitFlush commits b's encoded flight into s and ends it, as the engine's
// committer does (there on another goroutine).
func commitFlush(t testing.TB, s *Store, b *Backend) {
	t.Helper()
	f, err := b.Flush()
	if err != nil {
		t.Fatalf("Flush: %v", err)
	}
	if err := applyCommit(s, f); err != nil {
		t.Fatal(err)
	}
	b.EndFlush()
}

func applyCommit(s *Store, f *Flush) error {
	pb := s.NewBatch()
	if err := f.ApplyTo(pb); err != nil {
		pb.Close()
		return err
	}
	return s.Commit(pb)
}

// finishFlush encodes the rest of b's flight, commits it and ends it.
func finishFlush(t testing.TB, s *Store, b *Backend) {
	t.Helper()
	if done, err := b.FlushStep(1 << 30); err != nil || !done {
		t.Fatalf("FlushStep = %v, %v; want done", done, err)
	}
	commitFlush(t, s, b)
}

// The store receives exactly the cut, although the guest overwrites,
// deletes and creates entries after BeginFlush and before they are encoded;
// the writes after the cut go to the next flush.
func TestIncrementalFlushCommitsTheCut(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 0)
	for i := range 10 {
		mustKey(t, b, fmt.Sprint("k", i))
		mustPut(t, b, "a", fmt.Sprint("v", i))
	}
	if err := b.BeginFlush(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.FlushStep(3); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		mustKey(t, b, fmt.Sprint("k", i))
		switch i % 3 {
		case 0:
			mustPut(t, b, "a", fmt.Sprint("w", i))
		case 1:
			mustDelete(t, b, "a")
		}
		wantGetAfterCut(t, b, i)
	}
	mustKey(t, b, "new")
	mustPut(t, b, "a", "n")
	if got := committed(t, s, "op"); len(got) != 0 {
		t.Fatalf("store changed before the commit: %v", got)
	}
	finishFlush(t, s, b)
	want := map[string]string{}
	for i := range 10 {
		want[fmt.Sprint("a/k", i)] = fmt.Sprint("v", i)
	}
	if got := committed(t, s, "op"); !maps.Equal(got, want) {
		t.Fatalf("after the first commit the store holds\n%v\nwant the cut\n%v", got, want)
	}
	flushCommit(t, s, b)
	for i := range 10 {
		switch i % 3 {
		case 0:
			want[fmt.Sprint("a/k", i)] = fmt.Sprint("w", i)
		case 1:
			delete(want, fmt.Sprint("a/k", i))
		}
	}
	want["a/new"] = "n"
	if got := committed(t, s, "op"); !maps.Equal(got, want) {
		t.Fatalf("after the second flush the store holds\n%v\nwant\n%v", got, want)
	}
}

func wantGetAfterCut(t *testing.T, b *Backend, i int) {
	t.Helper()
	switch i % 3 {
	case 0:
		wantGet(t, b, "a", ptr(fmt.Sprint("w", i)))
	case 1:
		wantGet(t, b, "a", nil)
	default:
		wantGet(t, b, "a", ptr(fmt.Sprint("v", i)))
	}
}

// A rolled-back batch after the cut restores the entries, and the cut
// still holds their cut values (encoded before the batch wrote them).
func TestIncrementalFlushRollbackAfterCut(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 0)
	mustKey(t, b, "k")
	mustPut(t, b, "a", "1")
	flushCommit(t, s, b)
	mustPut(t, b, "a", "2")
	if err := b.BeginFlush(); err != nil {
		t.Fatal(err)
	}
	b.BeginBatch()
	mustPut(t, b, "a", "3")
	b.RollbackBatch()
	wantGet(t, b, "a", ptr("2"))
	finishFlush(t, s, b)
	if got := committed(t, s, "op"); got["a/k"] != "2" {
		t.Fatalf("store holds %v, want a/k=2", got)
	}
	if n := flushCommit(t, s, b); n != 0 {
		t.Fatalf("the rolled-back write left %d writes for the next flush", n)
	}
}

// During a flight nothing is evicted, and a key evicted before the cut is
// read from the frozen spill; after the commit the cache shrinks again.
func TestIncrementalFlushReadsTheFrozenSpill(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 4)
	for i := range 20 {
		mustKey(t, b, fmt.Sprint("k", i))
		mustPut(t, b, "a", fmt.Sprint("v", i))
	}
	if b.Stats().Spilled == 0 {
		t.Fatal("nothing was spilled; the test needs evicted writes")
	}
	if err := b.BeginFlush(); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		mustKey(t, b, fmt.Sprint("k", i))
		wantGet(t, b, "a", ptr(fmt.Sprint("v", i)))
		mustKey(t, b, fmt.Sprint("x", i))
		mustPut(t, b, "a", "x")
	}
	if st := b.Stats(); st.Entries < 40 || st.SpillBytes == 0 {
		t.Fatalf("during the flight: %d entries cached, %d spill bytes; want >= 40 (nothing evicted) and the frozen spill", st.Entries, st.SpillBytes)
	}
	if !b.FlushOverfull() {
		t.Fatal("FlushOverfull = false with 40 entries in a cache of 4")
	}
	finishFlush(t, s, b)
	if st := b.Stats(); st.Entries > 4 {
		t.Fatalf("after EndFlush %d entries cached, want at most 4", st.Entries)
	}
	got := committed(t, s, "op")
	for i := range 20 {
		if k := fmt.Sprint("a/k", i); got[k] != fmt.Sprint("v", i) {
			t.Fatalf("store: %s = %q, want v%d", k, got[k], i)
		}
		if k := fmt.Sprint("a/x", i); got[k] != "" {
			t.Fatalf("store holds %s, written after the cut", k)
		}
	}
	flushCommit(t, s, b)
	for i := range 20 {
		mustKey(t, b, fmt.Sprint("x", i))
		wantGet(t, b, "a", ptr("x"))
	}
}

// A value that had expired at the cut is written as a delete and is absent
// for the guest from the cut on, even for a late event-time record that
// would still see it as live: as if the flush had run at the cut.
func TestIncrementalFlushExpiredAtTheCut(t *testing.T) {
	s, clk := openStore(t), newClock()
	b := ttlBackend(t, s, 0, clk, map[string]TTL{"e": {Duration: 10 * time.Second, TimeDomain: EventTime}})
	eventRecord(t, b, 0, "k")
	mustPut(t, b, "e", "1")
	eventRecord(t, b, 20*time.Second, "other")
	if err := b.BeginFlush(); err != nil {
		t.Fatal(err)
	}
	eventRecord(t, b, 5*time.Second, "k") // late: at 5 s the value lives
	wantGet(t, b, "e", nil)
	finishFlush(t, s, b)
	if got := committed(t, s, "op"); len(got) != 0 {
		t.Fatalf("store holds %v, want nothing (expired at the cut)", got)
	}
}

// BeginFlush refuses inside a guest batch and while a flight is pending;
// FlushTo refuses during a flight.
func TestIncrementalFlushRefusals(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 0)
	b.BeginBatch()
	if err := b.BeginFlush(); !errors.Is(err, ErrInBatch) {
		t.Fatalf("BeginFlush in a batch = %v, want ErrInBatch", err)
	}
	b.CommitBatch()
	if err := b.BeginFlush(); err != nil {
		t.Fatal(err)
	}
	if err := b.BeginFlush(); !errors.Is(err, ErrFlushPending) {
		t.Fatalf("second BeginFlush = %v, want ErrFlushPending", err)
	}
	pb := s.NewBatch()
	defer pb.Close()
	if _, err := b.FlushTo(pb); !errors.Is(err, ErrFlushPending) {
		t.Fatalf("FlushTo during a flight = %v, want ErrFlushPending", err)
	}
	finishFlush(t, s, b)
	if _, err := b.Flush(); err == nil {
		t.Fatal("Flush without a flight succeeded")
	}
}

// TestIncrementalFlushAgainstFlushTo runs random operations on two
// backends over two stores: A flushes with FlushTo at every cut, B with
// an incremental flush whose steps, commit (on another goroutine) and end
// interleave with later records. Every read must agree, and whenever B
// commits cut N its store must equal A's store after cut N. Tiny caches
// (evictions, spills), TTLs in both time domains and both visibilities,
// late event times, and batches committed and rolled back.
func TestIncrementalFlushAgainstFlushTo(t *testing.T) {
	for seed := range uint64(24) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			runFlushTwins(t, rand.New(rand.NewPCG(seed, 7)), 1+int(seed%6))
		})
	}
}

type flushTwins struct {
	t      *testing.T
	rng    *rand.Rand
	clk    *fakeClock
	sa, sb *Store
	a, b   *Backend
	cuts   []map[string]Value // A's store after each cut
	flying int                // B's flight: index in cuts; -1 none
	commit chan error         // B's commit in progress; nil none
}

func runFlushTwins(t *testing.T, rng *rand.Rand, capacity int) {
	ttl := map[string]TTL{
		"p": {Duration: 10 * time.Second},
		"r": {Duration: 10 * time.Second, Update: OnReadAndWrite, Visibility: ReturnExpiredIfNotCleaned},
		"e": {Duration: 10 * time.Second, TimeDomain: EventTime},
	}
	w := &flushTwins{t: t, rng: rng, clk: newClock(), sa: openStore(t), sb: openStore(t), flying: -1}
	w.a = ttlBackend(t, w.sa, capacity, w.clk, ttl)
	w.b = ttlBackend(t, w.sb, capacity, w.clk, ttl)
	names := []string{"p", "r", "e", "plain"}
	for range 2500 {
		switch op := rng.IntN(100); {
		case op < 60:
			w.record(names[rng.IntN(len(names))])
		case op < 72:
			w.toggleBatch()
		case op < 77 && !w.a.InBatch():
			w.cut()
		case op < 92 && !w.a.InBatch():
			w.step()
		case op < 96 && !w.a.InBatch():
			w.land()
		case !w.a.InBatch():
			w.compareReadKey()
		}
	}
	if w.a.InBatch() {
		w.a.CommitBatch()
		w.b.CommitBatch()
	}
	w.cut()
	w.land()
}

// record runs one record on both backends: a Get, Put or Delete.
func (w *flushTwins) record(name string) {
	w.clk.now += w.rng.Int64N(int64(3 * time.Second))
	key := fmt.Sprint("k", w.rng.IntN(10))
	ev := w.clk.now - w.rng.Int64N(int64(8*time.Second)) // late at times
	for _, b := range []*Backend{w.a, w.b} {
		if err := b.SetCurrentRecord([]byte(key), ev); err != nil {
			w.t.Fatal(err)
		}
	}
	switch op := w.rng.IntN(10); {
	case op < 5:
		va, fa, erra := w.a.Get([]byte(name))
		sa := string(va)
		vb, fb, errb := w.b.Get([]byte(name))
		if erra != nil || errb != nil || fa != fb || sa != string(vb) {
			w.t.Fatalf("Get(%s/%s): A = %q %v %v, B = %q %v %v", name, key, sa, fa, erra, vb, fb, errb)
		}
	case op < 8:
		v := fmt.Sprint("v", w.rng.IntN(1000))
		mustPut(w.t, w.a, name, v)
		mustPut(w.t, w.b, name, v)
	default:
		mustDelete(w.t, w.a, name)
		mustDelete(w.t, w.b, name)
	}
}

func (w *flushTwins) toggleBatch() {
	switch {
	case !w.a.InBatch():
		w.a.BeginBatch()
		w.b.BeginBatch()
	case w.rng.IntN(3) == 0:
		w.a.RollbackBatch()
		w.b.RollbackBatch()
	default:
		w.a.CommitBatch()
		w.b.CommitBatch()
	}
}

// cut flushes A at once and begins B's flight, finishing B's previous one
// first (as the engine does at the next barrier).
func (w *flushTwins) cut() {
	flushCommit(w.t, w.sa, w.a)
	w.cuts = append(w.cuts, rawCommitted(w.t, w.sa, "op"))
	w.land()
	if err := w.b.BeginFlush(); err != nil {
		w.t.Fatal(err)
	}
	w.flying = len(w.cuts) - 1
}

// step encodes a few of B's entries; once all are, the commit starts on
// another goroutine.
func (w *flushTwins) step() {
	if w.flying < 0 || w.commit != nil {
		return
	}
	done, err := w.b.FlushStep(1 + w.rng.IntN(3))
	if err != nil {
		w.t.Fatal(err)
	}
	if !done {
		return
	}
	f, err := w.b.Flush()
	if err != nil {
		w.t.Fatal(err)
	}
	w.commit = make(chan error, 1)
	go func() { w.commit <- applyCommit(w.sb, f) }()
}

// land finishes B's flight, ends it and checks the store against A's cut.
func (w *flushTwins) land() {
	if w.flying < 0 {
		return
	}
	for w.commit == nil {
		w.step()
	}
	if err := <-w.commit; err != nil {
		w.t.Fatal(err)
	}
	w.b.EndFlush()
	got, want := rawCommitted(w.t, w.sb, "op"), w.cuts[w.flying]
	if !maps.EqualFunc(got, want, sameValue) {
		w.t.Fatalf("cut %d: B's store\n%v\nA's store\n%v", w.flying, got, want)
	}
	w.commit, w.flying = nil, -1
}

// compareReadKey compares what a live query sees, but for expired values:
// a pending one is only dropped once encoded.
func (w *flushTwins) compareReadKey() {
	key := []byte(fmt.Sprint("k", w.rng.IntN(10)))
	ea, err := w.a.ReadKey(key, "")
	if err != nil {
		w.t.Fatal(err)
	}
	eb, err := w.b.ReadKey(key, "")
	if err != nil {
		w.t.Fatal(err)
	}
	if a, b := w.live(ea), w.live(eb); !maps.EqualFunc(a, b, sameValue) {
		w.t.Fatalf("ReadKey(%s): A %v, B %v", key, a, b)
	}
}

func (w *flushTwins) live(es []KeyEntry) map[string]Value {
	m := map[string]Value{}
	for _, e := range es {
		if e.Value.HasExpiry && e.Value.ExpiresAt <= w.clk.now {
			continue
		}
		m[string(e.Name)] = e.Value
	}
	return m
}

func sameValue(x, y Value) bool {
	return string(x.Data) == string(y.Data) && x.HasExpiry == y.HasExpiry && x.ExpiresAt == y.ExpiresAt
}
