package acceptance

import (
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

// The model sums a key's events in the stream's order: an event whose
// first publish a leader's death lost is stored after events published
// behind it, and the pipeline then sums it last. (A nemesis run once
// failed its publisher on exactly that: the retried events were stored
// after the later ones, and the publisher took the stream for not fresh.)
func TestModelFollowsTheStreamOrder(t *testing.T) {
	m := newModel()
	e1, e2, e3 := event{msgID: "e1", key: "a", seq: 1}, event{msgID: "e2", key: "a", seq: 2}, event{msgID: "e3", key: "a", seq: 3}
	m.add(e1, 5)
	m.add(e3, 6) // e2's first publish was lost
	m.add(e2, 9) // sent again, stored last
	want := map[uint64]sumOutput{
		5: {K: "a", V: 1, Sum: 1, Count: 1},
		6: {K: "a", V: 3, Sum: 4, Count: 2},
		9: {K: "a", V: 2, Sum: 6, Count: 3},
	}
	for seq, w := range want {
		if got := m.byID[outputID(seq)]; got != w {
			t.Errorf("output of sequence %d: %+v, want %+v", seq, got, w)
		}
	}
	// An event inserted before the others re-sums those after it.
	m.add(event{msgID: "e0", key: "a", seq: 4}, 2)
	if got := m.byID[outputID(9)]; got.Sum != 10 || got.Count != 4 {
		t.Errorf("output of sequence 9 after an earlier insert: %+v, want sum 10 count 4", got)
	}
	if m.perKey["a"] != 4 || m.lastSeq != 9 {
		t.Errorf("perKey %d lastSeq %d, want 4 and 9", m.perKey["a"], m.lastSeq)
	}
}

// A duplicate acknowledgement is accepted only for an event sent again,
// at a sequence no other event holds.
func TestCheckAck(t *testing.T) {
	m := newModel()
	m.add(event{msgID: "e1", key: "a", seq: 1}, 1)
	ack := func(seq uint64, dup bool) *jetstream.PubAck {
		return &jetstream.PubAck{Stream: inputStream, Sequence: seq, Duplicate: dup}
	}
	e2 := event{msgID: "e2", key: "a", seq: 2}
	for _, tc := range []struct {
		name  string
		ack   *jetstream.PubAck
		again bool
		ok    bool
	}{
		{"new", ack(2, false), false, true},
		{"duplicate on a first attempt", ack(2, true), false, false},
		{"duplicate of an attempt whose answer was lost", ack(2, true), true, true},
		{"at a sequence another event holds", ack(1, true), true, false},
		{"another stream", &jetstream.PubAck{Stream: "X", Sequence: 2}, false, false},
	} {
		if err := checkAck(e2, tc.ack, m, tc.again); (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}
