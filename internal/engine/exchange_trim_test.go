package engine

import (
	"context"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/exchange"
	"github.com/wasmstream/wasmstream/natsio"
)

// TrimExchanges trims an exchange stream below where every retained checkpoint resumes it, not
// only the oldest: a cluster checkpoint resumes an edge at the lowest position any worker
// reported, so a newer one can resume it earlier (a cluster restore once found the stream
// trimmed past its checkpoint). A retained checkpoint without a position of the stream leaves
// it untrimmed.
func TestTrimExchangesKeepsWhatEveryRetainedCheckpointNeeds(t *testing.T) {
	s := newChainSetup(t, 2)
	cfg := s.load(t)
	ctx := context.Background()
	c, err := ConnectClient(ctx, cfg, hclog.NewNullLogger(), AsControl)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	names, err := EnsureExchanges(ctx, cfg, c)
	if err != nil {
		t.Fatal(err)
	}
	edge := exchange.Edge{Pipeline: cfg.Name, Producer: "s1", Output: "out", Consumer: "s2"}
	sink := c.NewSink(64)
	for i := range 10 {
		if err := sink.Publish(ctx, natsio.OutMessage{Subject: edge.Subject(i % 3), Data: []byte("x")}); err != nil {
			t.Fatal(err)
		}
	}
	if err := sink.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	sink.Close()
	st, err := c.JS.Stream(ctx, names[0])
	if err != nil {
		t.Fatal(err)
	}
	at := func(id, last uint64) checkpoint.Manifest {
		return checkpoint.Manifest{ID: id, Sources: []checkpoint.SourcePosition{{Name: "s1.out", Stream: names[0], StreamCreated: st.CachedInfo().Created, LastSequence: last}}}
	}
	first := func() uint64 {
		st, err := c.JS.Stream(ctx, names[0])
		if err != nil {
			t.Fatal(err)
		}
		return st.CachedInfo().State.FirstSeq
	}
	if _, err := TrimExchanges(ctx, c, cfg, at(3, 6), checkpoint.Manifest{ID: 2}, at(1, 4)); err != nil {
		t.Fatal(err)
	}
	if got := first(); got != 1 {
		t.Fatalf("with a retained checkpoint that holds no position of the stream, it starts at %d, want 1 (untrimmed)", got)
	}
	if _, err := TrimExchanges(ctx, c, cfg, at(3, 6), at(2, 2), at(1, 4)); err != nil {
		t.Fatal(err)
	}
	if got := first(); got != 3 {
		t.Errorf("the stream starts at %d, want 3: where the newer checkpoint 2 resumes it, before the oldest's 5", got)
	}
}
