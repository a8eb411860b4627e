package wasmstream

import "testing"

func TestAllocReusesAndGrows(t *testing.T) {
	defer func(saved []byte) { allocBuf = saved }(allocBuf)
	allocBuf = nil

	a := alloc(10)
	if len(a) < minAlloc {
		t.Fatalf("first alloc is %d bytes, want at least %d", len(a), minAlloc)
	}
	a[0] = 1
	if b := alloc(minAlloc); &b[0] != &a[0] {
		t.Fatal("alloc of a size that fits did not reuse the buffer")
	}
	c := alloc(minAlloc + 1)
	if &c[0] == &a[0] || len(c) != minAlloc+1 {
		t.Fatalf("alloc past the capacity: len %d, reused %v; want a new buffer of the size asked", len(c), &c[0] == &a[0])
	}
	if d := alloc(5 * minAlloc); len(d) < 5*minAlloc {
		t.Fatalf("alloc(%d) returned %d bytes", 5*minAlloc, len(d))
	}
}

func TestAllocated(t *testing.T) {
	defer func(saved []byte) { allocBuf = saved }(allocBuf)
	allocBuf = make([]byte, 100)
	tests := []struct {
		off, n int
		ok     bool
	}{
		{0, 100, true},
		{10, 90, true},
		{100, 0, true},
		{0, 101, false},
		{99, 2, false},
		{101, 0, false},
		{-1, 1, false},
		{1, -1, false},
	}
	for _, tt := range tests {
		b, ok := allocated(tt.off, tt.n)
		if ok != tt.ok || (ok && (len(b) != tt.n || cap(b) != tt.n)) {
			t.Errorf("allocated(%d, %d) = len %d cap %d, %v; want ok=%v", tt.off, tt.n, len(b), cap(b), ok, tt.ok)
		}
	}
}
