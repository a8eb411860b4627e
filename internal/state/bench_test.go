package state

import (
	"bytes"
	"fmt"
	"testing"
)

const (
	benchKeys     = 100_000
	benchValueLen = 100
)

func benchKeySet(n int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "user-%08d", i)
	}
	return keys
}

// BenchmarkGetPut is one record's state access: SetCurrentKey, Get and Put
// of a 100-byte value, keys taken in turn from 100,000 distinct keys. The
// store has the default options (256 MiB block cache, bloom filters).
//
//	cached:   all keys fit in the cache (the steady state of a hot key set)
//	batched:  the same inside guest batches of 100 records (undo log on)
//	evicting: a cache of 10,000 entries, so 9 in 10 records miss and evict;
//	          a checkpoint flush every 100,000 records bounds the spill
//	hot1k:    batched over 1,000 keys only: the cost when the CPU caches
//	          hold the working set
func BenchmarkGetPut(b *testing.B) {
	b.Run("cached", func(b *testing.B) { benchGetPut(b, benchKeys, 0, 0, 0) })
	b.Run("batched", func(b *testing.B) { benchGetPut(b, benchKeys, 0, 100, 0) })
	b.Run("evicting", func(b *testing.B) { benchGetPut(b, benchKeys, benchKeys/10, 100, benchKeys) })
	b.Run("hot1k", func(b *testing.B) { benchGetPut(b, 1000, 0, 100, 0) })
}

func benchGetPut(b *testing.B, nKeys, cacheEntries, batchLen, flushEvery int) {
	s := openStoreWith(b, Options{})
	be := fullBackend(b, s, "bench", cacheEntries)
	keys, name, val := benchKeySet(nKeys), []byte("count"), bytes.Repeat([]byte("v"), benchValueLen)
	for _, k := range keys { // warm up: every key cached and dirty once
		getPut(b, be, k, name, val)
	}
	flushCommit(b, s, be)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if batchLen > 0 && i%batchLen == 0 {
			be.BeginBatch()
		}
		getPut(b, be, keys[i%nKeys], name, val)
		if batchLen > 0 && (i%batchLen == batchLen-1 || i == b.N-1) {
			be.CommitBatch()
		}
		if flushEvery > 0 && i%flushEvery == flushEvery-1 && !be.InBatch() {
			flushCommit(b, s, be)
		}
	}
}

func getPut(b *testing.B, be *Backend, key, name, val []byte) {
	if err := be.SetCurrentKey(key); err != nil {
		b.Fatal(err)
	}
	if _, _, err := be.Get(name); err != nil {
		b.Fatal(err)
	}
	if err := be.Put(name, val); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkFlush is a checkpoint's state write: 100,000 dirty entries
// flushed into one batch and committed with Sync. One op is one flush;
// ns/key is the cost per entry.
func BenchmarkFlush(b *testing.B) {
	s := openStoreWith(b, Options{})
	be := fullBackend(b, s, "bench", 0)
	keys, name, val := benchKeySet(benchKeys), []byte("count"), bytes.Repeat([]byte("v"), benchValueLen)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		for _, k := range keys {
			getPut(b, be, k, name, val)
		}
		b.StartTimer()
		if n := flushCommit(b, s, be); n != benchKeys {
			b.Fatalf("flushed %d keys, want %d", n, benchKeys)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchKeys), "ns/key")
}
