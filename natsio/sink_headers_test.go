package natsio

import (
	"maps"
	"reflect"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestWithMsgIDDropsBatchHeaders: headers of the atomic batch protocol,
// forwarded from an input stored by a batch, never leave with an output;
// the caller's header map is not modified.
func TestWithMsgIDDropsBatchHeaders(t *testing.T) {
	in := nats.Header{"Nats-Batch-Id": {"b-1"}, "Nats-Batch-Sequence": {"3"}, "Nats-Batch-Commit": {"1"}, "Trace": {"t"}}
	for _, id := range []string{"", "out-1"} {
		got := withMsgID(in, id)
		for k := range got {
			if isBatchHeader(k) {
				t.Fatalf("id %q: header %s kept", id, k)
			}
		}
		if got.Get("Trace") != "t" || got.Get(jetstream.MsgIDHeader) != id {
			t.Fatalf("id %q: headers %v", id, got)
		}
	}
	if len(in) != 4 {
		t.Fatalf("the caller's headers were modified: %v", in)
	}
	plain := nats.Header{"Trace": {"t"}}
	if got := withMsgID(plain, ""); len(got) != 1 {
		t.Fatalf("headers without batch headers changed: %v", got)
	}
}

// TestSetMsgIDMatchesWithMsgID: changing an owned header map in place
// gives the headers a copy would get, applying it again changes nothing,
// and WireSize, measured before, still measures what is sent.
func TestSetMsgIDMatchesWithMsgID(t *testing.T) {
	for _, c := range []struct {
		name string
		h    nats.Header
		id   string
	}{
		{"empty", nats.Header{}, "out-1"},
		{"plain, no id", nats.Header{"Key": {"k"}}, ""},
		{"plain", nats.Header{"Key": {"k"}, "count": {"3"}}, "out-1"},
		{"batch headers", nats.Header{"Nats-Batch-Id": {"b-1"}, "nats-batch-sequence": {"3"}, "Trace": {"t"}}, "out-1"},
		{"batch headers, no id", nats.Header{"Nats-Batch-Commit": {"1"}, "Trace": {"t"}}, ""},
		{"an id already", nats.Header{jetstream.MsgIDHeader: {"old"}, "Trace": {"t"}}, "out-1"},
		{"lower-case id header", nats.Header{"nats-msg-id": {"old"}}, "out-1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := withMsgID(c.h, c.id)
			size := WireSize(OutMessage{MsgID: c.id, Header: c.h})
			got := setMsgID(c.h, c.id)
			if !reflect.DeepEqual(map[string][]string(got), map[string][]string(want)) {
				t.Fatalf("setMsgID = %v, withMsgID = %v", got, want)
			}
			if again := setMsgID(maps.Clone(got), c.id); !reflect.DeepEqual(again, got) {
				t.Fatalf("applied twice: %v, once: %v", again, got)
			}
			if after := WireSize(OutMessage{MsgID: c.id, Header: got}); after != size {
				t.Fatalf("WireSize before = %d, after = %d", size, after)
			}
		})
	}
}

// TestSinkOwnHeader: an owned header map is sent as changed in place,
// batch headers dropped and the id set, and that is what is stored; a
// nil owned map still gets its id.
func TestSinkOwnHeader(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "OUT", "out.>")
	s := c.NewSink(0)
	defer s.Close()
	ctx := testCtx(t)
	owned := nats.Header{"Trace": {"t1"}, "Nats-Batch-Id": {"b-1"}}
	for _, m := range []OutMessage{
		{Subject: "out.x", MsgID: "id-1", Data: []byte("d"), Header: owned, OwnHeader: true},
		{Subject: "out.x", MsgID: "id-2", Data: []byte("d"), OwnHeader: true},
	} {
		if err := s.Publish(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if len(owned) != 2 || owned.Get(jetstream.MsgIDHeader) != "id-1" || owned.Get("Nats-Batch-Id") != "" {
		t.Fatalf("owned header after Publish = %v, want Trace and the id", owned)
	}
	src, err := c.OpenSource(ctx, SourceSpec{Stream: "OUT"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	got := fetchN(t, src, 2)
	if h := got[0].Header; h.Get("Trace") != "t1" || h.Get(jetstream.MsgIDHeader) != "id-1" || h.Get("Nats-Batch-Id") != "" {
		t.Fatalf("stored headers = %v", h)
	}
	if id := got[1].Header.Get(jetstream.MsgIDHeader); id != "id-2" {
		t.Fatalf("stored id of the nil owned header = %q", id)
	}
}

// FuzzSetMsgID: in place or in a copy, the headers sent are the same.
func FuzzSetMsgID(f *testing.F) {
	f.Add("Nats-Batch-Id", "Key", "id-1")
	f.Add("nats-batch-seq", "Nats-Msg-Id", "")
	f.Fuzz(func(t *testing.T, k1, k2, id string) {
		h := nats.Header{k1: {"v1"}, k2: {"v2"}}
		want := withMsgID(h, id)
		if got := setMsgID(maps.Clone(h), id); !reflect.DeepEqual(got, want) {
			t.Fatalf("setMsgID = %v, withMsgID = %v", got, want)
		}
	})
}
