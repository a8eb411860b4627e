//go:build !wasip1

package sdktest

import "testing"

func TestStoreCommitAndRollback(t *testing.T) {
	s := newStore()
	a := stateID{"k", "a"}
	b := stateID{"k", "b"}
	s.put(a, []byte("1"), 0)
	s.commit()

	s.put(a, []byte("2"), 0)
	s.put(b, []byte("x"), 0)
	if v, ok, _ := s.get(a); !ok || string(v) != "2" {
		t.Fatalf("pending put not visible: %q %v", v, ok)
	}
	s.rollback()
	if v, ok, _ := s.get(a); !ok || string(v) != "1" {
		t.Fatalf("after rollback a = %q %v, want committed 1", v, ok)
	}
	if _, ok, _ := s.get(b); ok {
		t.Fatal("rolled-back put of b is visible")
	}

	s.delete(a)
	if _, ok, _ := s.get(a); ok {
		t.Fatal("pending delete not visible")
	}
	s.commit()
	if _, ok := s.committed[a]; ok {
		t.Fatal("committed delete left the value")
	}
}

func TestStorePutCopiesValue(t *testing.T) {
	s := newStore()
	buf := []byte("abc")
	s.put(stateID{"k", "n"}, buf, 0)
	buf[0] = 'X'
	if v, _, _ := s.get(stateID{"k", "n"}); string(v) != "abc" {
		t.Fatalf("store aliases the caller's buffer: %q", v)
	}
}
