package state

import (
	"fmt"
	"testing"
)

// PrefetchBatch only warms: a backend that prefetches every batch gives
// the same values and the same statistics as one that never does (the two
// operators have names of one length: spilled bytes count them), also
// across deletes, keys repeated in a batch and a rolled-back batch.
func TestPrefetchBatchChangesNothing(t *testing.T) {
	s := openStore(t)
	plain, warmed := fullBackend(t, s, "plain_", 1000), fullBackend(t, s, "warmed", 1000)
	keys := make([][]byte, 200)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("k%03d", i%150)) // some keys twice in a batch
	}
	for round := 0; round < 6; round++ {
		for _, b := range []*Backend{plain, warmed} {
			b.BeginBatch()
			if b == warmed {
				b.PrefetchBatch(keys)
			}
			for i, k := range keys {
				mustKey(t, b, string(k))
				v, _, err := b.Get([]byte("count"))
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case (i+round)%7 == 0:
					mustDelete(t, b, "count")
				default:
					mustPut(t, b, "count", string(v)+"x")
				}
			}
			if round == 3 {
				b.RollbackBatch()
			} else {
				b.CommitBatch()
			}
		}
	}
	for _, k := range keys {
		mustKey(t, plain, string(k))
		mustKey(t, warmed, string(k))
		a, _, _ := plain.Get([]byte("count"))
		b, _, _ := warmed.Get([]byte("count"))
		if string(a) != string(b) {
			t.Fatalf("key %s: %q without prefetch, %q with", k, a, b)
		}
	}
	if ps, ws := plain.Stats(), warmed.Stats(); ps != ws {
		t.Fatalf("stats differ:\nwithout prefetch %+v\nwith prefetch    %+v", ps, ws)
	}
}
