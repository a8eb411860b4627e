package wasmstream

import "testing"

func TestKeepBounded(t *testing.T) {
	if b := keepBounded(make([]byte, 0, maxRetainedScratch)); b == nil {
		t.Fatal("a buffer at the limit was dropped")
	}
	if b := keepBounded(make([]byte, 0, maxRetainedScratch+1)); b != nil {
		t.Fatal("a buffer over the limit was kept")
	}
}
