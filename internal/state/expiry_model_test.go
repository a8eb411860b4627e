package state

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
	"time"
)

// ttlModel is the expected state under a TTL: values with their expiries,
// live (what the backend must show), at the last flush (what the store
// holds) and at the start of the open batch.
type ttlModel struct {
	live, store, atBegin map[string]ttlEntry
	storeRaw             map[string]Value // the store as read after the last flush
}

type ttlEntry struct {
	v   string
	exp int64
}

// TestBackendTTLAgainstModel runs random operations (reads, writes,
// deletes, batches committed and rolled back, flushes, sweeps, crashes)
// with tiny caches and a clock that moves 0..3 s per record, under a 10 s
// TTL on every name, and checks every read and every cut against the model.
func TestBackendTTLAgainstModel(t *testing.T) {
	for seed := range uint64(16) {
		update := []UpdateType{OnCreateAndWrite, OnReadAndWrite}[seed%2]
		t.Run(fmt.Sprintf("seed%d/%s", seed, update), func(t *testing.T) {
			runTTLModel(t, rand.New(rand.NewPCG(seed, 11)), 1+int(seed%5), update)
		})
	}
}

const modelTTL = 10 * time.Second

func runTTLModel(t *testing.T, rng *rand.Rand, capacity int, update UpdateType) {
	s, clk := openStore(t), newClock()
	ttl := map[string]TTL{"n0": {Duration: modelTTL, Update: update}, "n1": {Duration: modelTTL, Update: update},
		"n2": {Duration: modelTTL, Update: update}}
	b := ttlBackend(t, s, capacity, clk, ttl)
	m := ttlModel{live: map[string]ttlEntry{}, store: map[string]ttlEntry{}, storeRaw: map[string]Value{}}
	for step := range 3000 {
		key, name := fmt.Sprint("k", rng.IntN(12)), fmt.Sprint("n", rng.IntN(3))
		id := name + "/" + key
		switch op := rng.IntN(100); {
		case op < 65:
			clk.now += rng.Int64N(int64(3 * time.Second))
			mustKey(t, b, key)
			modelAccess(t, b, &m, rng, op, name, id, clk.now, update)
		case op < 80:
			if b.InBatch() {
				b.CommitBatch()
			} else {
				b.BeginBatch()
				m.atBegin = maps.Clone(m.live)
			}
		case op < 86:
			if b.InBatch() {
				b.RollbackBatch()
				m.live = m.atBegin
			}
		case op < 93:
			if !b.InBatch() {
				flushCommit(t, s, b)
				m.store, m.storeRaw = maps.Clone(m.live), rawCommitted(t, s, "op")
				checkTTLCut(t, step, m.storeRaw, m.live, clk.now)
			}
		case op < 98:
			if !b.InBatch() {
				if _, err := b.Sweep(1 + rng.IntN(10)); err != nil {
					t.Fatal(err)
				}
			}
		default:
			if !b.InBatch() { // crash: unflushed writes and sweeps are gone
				if got := rawCommitted(t, s, "op"); !rawEqual(got, m.storeRaw) {
					t.Fatalf("step %d: store changed without a flush", step)
				}
				b.Close()
				b = ttlBackend(t, s, capacity, clk, ttl)
				m.live = maps.Clone(m.store)
			}
		}
	}
}

// modelAccess does one Get, Put or Delete on backend and model.
func modelAccess(t *testing.T, b *Backend, m *ttlModel, rng *rand.Rand, op int, name, id string, now int64, update UpdateType) {
	e, ok := m.live[id]
	visible := ok && e.exp > now
	switch {
	case op < 35:
		var want *string
		if visible {
			want = &e.v
		}
		wantGet(t, b, name, want)
		switch {
		case visible && update == OnReadAndWrite:
			e.exp = max(e.exp, now+int64(modelTTL))
			m.live[id] = e
		case ok && !visible:
			delete(m.live, id)
		}
	case op < 55:
		v := fmt.Sprint("v", rng.IntN(1000))
		mustPut(t, b, name, v)
		m.live[id] = ttlEntry{v, now + int64(modelTTL)}
	default:
		mustDelete(t, b, name)
		delete(m.live, id)
	}
}

// checkTTLCut checks the store right after a flush at now: every value the
// model holds live is there with its expiry, and everything there is in the
// model as it is (an expired one waits for cleanup).
func checkTTLCut(t *testing.T, step int, raw map[string]Value, live map[string]ttlEntry, now int64) {
	t.Helper()
	for id, e := range live {
		v, ok := raw[id]
		if e.exp > now && (!ok || string(v.Data) != e.v || !v.HasExpiry || v.ExpiresAt != e.exp) {
			t.Fatalf("step %d: %s = %+v in the store, want %q expiring at %d", step, id, v, e.v, e.exp)
		}
	}
	for id, v := range raw {
		if !v.HasExpiry {
			t.Fatalf("step %d: %s has no expiry", step, id)
		}
		if e, ok := live[id]; !ok || e.v != string(v.Data) || e.exp != v.ExpiresAt {
			t.Fatalf("step %d: store has %s = %q expiring at %d, model %+v (live: %t) at %d", step, id, v.Data, v.ExpiresAt, e, ok, now)
		}
	}
}

// rawEqual compares decoded stores by content.
func rawEqual(a, b map[string]Value) bool {
	return maps.EqualFunc(a, b, func(x, y Value) bool {
		return string(x.Data) == string(y.Data) && x.HasExpiry == y.HasExpiry && x.ExpiresAt == y.ExpiresAt
	})
}
