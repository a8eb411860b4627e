package natsio

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

func TestSourceFromStartSequenceWithFilter(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "PAY", "payments.>")
	// Sequences 1..30 alternate between two subjects: odd = eu, even = us.
	for i := 1; i <= 30; i++ {
		region := map[bool]string{true: "eu", false: "us"}[i%2 == 1]
		publishSync(t, c, "payments."+region, fmt.Sprint(i))
	}
	src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "PAY", FilterSubject: "payments.eu", StartSequence: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	got := fetchN(t, src, 10) // 11, 13, ..., 29
	for i, m := range got {
		want := uint64(11 + 2*i)
		if m.Sequence != want || m.Subject != "payments.eu" || string(m.Data) != fmt.Sprint(want) || m.Stream != "PAY" || m.Time.IsZero() {
			t.Fatalf("message %d = %+v, want sequence %d on payments.eu", i, m, want)
		}
	}
	if batch, err := src.Fetch(testCtx(t), 10, 50*time.Millisecond); batch != nil || err != nil {
		t.Fatalf("after the last eu message Fetch = %d messages, %v; want a timeout (nil, nil)", len(batch), err)
	}
}

// A source with several filter subjects reads exactly those, in stream order, from its start
// sequence; a filter subject and filter subjects together, or an invalid one, are refused.
func TestSourceWithFilterSubjects(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "KG", "kg.*")
	for i := 1; i <= 40; i++ {
		publishSync(t, c, fmt.Sprintf("kg.%d", i%4), fmt.Sprint(i))
	}
	src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "KG", FilterSubjects: []string{"kg.1", "kg.3"}, StartSequence: 6})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	got := fetchN(t, src, 17) // the odd sequences 7 ... 39
	for i, m := range got {
		if want := uint64(7 + 2*i); m.Sequence != want || m.Subject != fmt.Sprintf("kg.%d", want%4) {
			t.Fatalf("message %d = sequence %d on %s, want sequence %d on kg.%d", i, m.Sequence, m.Subject, want, want%4)
		}
	}
	if batch, err := src.Fetch(testCtx(t), 10, 50*time.Millisecond); batch != nil || err != nil {
		t.Fatalf("after the last message of the filters Fetch = %d messages, %v; want a timeout", len(batch), err)
	}
	for _, spec := range []SourceSpec{
		{Stream: "KG", FilterSubject: "kg.1", FilterSubjects: []string{"kg.2"}},
		{Stream: "KG", FilterSubjects: []string{"kg.1", "kg..2"}},
	} {
		if _, err := c.OpenSource(testCtx(t), spec); !errors.Is(err, ErrInvalidStreamSpec) {
			t.Errorf("OpenSource(%+v) = %v, want ErrInvalidStreamSpec", spec, err)
		}
	}
}

func TestSourceDeliversExactlyFromStart(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "S", "s.>")
	publishMany(t, c, "s.a", 100)
	for _, start := range []uint64{0, 1, 2, 57, 100} {
		t.Run(fmt.Sprint(start), func(t *testing.T) {
			src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S", StartSequence: start})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			first := max(start, 1)
			got := fetchN(t, src, int(101-first))
			for i, m := range got {
				if m.Sequence != first+uint64(i) {
					t.Fatalf("message %d has sequence %d, want %d", i, m.Sequence, first+uint64(i))
				}
			}
		})
	}
}

func TestSourceFetchBatchesAndWaits(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "S", "s.>")
	src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if batch, err := src.Fetch(testCtx(t), 10, 20*time.Millisecond); batch != nil || err != nil {
		t.Fatalf("empty stream: Fetch = %v, %v; want nil, nil", batch, err)
	}
	// A Fetch that is already waiting returns when a message arrives.
	type result struct {
		batch []Message
		err   error
	}
	done := make(chan result)
	go func() {
		b, err := src.Fetch(testCtx(t), 10, testTimeout)
		done <- result{b, err}
	}()
	publishSync(t, c, "s.x", "late")
	r := <-done
	if r.err != nil || len(r.batch) == 0 || string(r.batch[0].Data) != "late" {
		t.Fatalf("waiting Fetch = %v, %v", r.batch, r.err)
	}
	// max bounds the batch.
	publishMany(t, c, "s.x", 50)
	total := len(r.batch)
	for total < 51 {
		batch, err := src.Fetch(testCtx(t), 7, testTimeout)
		if err != nil || len(batch) == 0 || len(batch) > 7 {
			t.Fatalf("Fetch(max 7) = %d messages, %v", len(batch), err)
		}
		total += len(batch)
	}
}

func TestSourceFetchContextAndClose(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "S", "s.>")
	src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := src.Fetch(ctx, 10, testTimeout); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Fetch: err = %v", err)
	}
	publishMany(t, c, "s.x", 5)
	src.Close()
	src.Close()
	if _, err := src.Fetch(testCtx(t), 10, time.Millisecond); !errors.Is(err, ErrSourceClosed) {
		t.Fatalf("Fetch after Close: err = %v, want ErrSourceClosed", err)
	}
}

func TestSourceConnectionClosed(t *testing.T) {
	srv := embedded(t)
	c, err := Connect(testCtx(t), ServerOptions{URL: srv.ClientURL()})
	if err != nil {
		t.Fatal(err)
	}
	ensureStream(t, c, "S", "s.>")
	src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	c.Close()
	if _, err := src.Fetch(testCtx(t), 10, testTimeout); err == nil || errors.Is(err, ErrSourceClosed) {
		t.Fatalf("Fetch on a closed connection: err = %v, want the consumer's error", err)
	}
}

func TestSourceIdentity(t *testing.T) {
	c := embedded(t)
	info := ensureStream(t, c, "S", "s.>")
	src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	id := src.Identity()
	if id.Stream != "S" || !id.Created.Equal(info.Created) {
		t.Fatalf("Identity() = %+v, stream created %s", id, info.Created)
	}
	// A stream created again under the same name is another stream.
	if err := c.JS.DeleteStream(testCtx(t), "S"); err != nil {
		t.Fatal(err)
	}
	info2 := ensureStream(t, c, "S", "s.>")
	if info2.Created.Equal(id.Created) {
		t.Fatal("recreated stream has the same creation time")
	}
}

func TestSourcePositionChecks(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "S", "s.>")
	publishMany(t, c, "s.x", 20)
	st, err := c.JS.Stream(testCtx(t), "S")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Purge(testCtx(t), jetstream.WithPurgeSequence(11)); err != nil { // keeps 11..20
		t.Fatal(err)
	}
	tests := []struct {
		start uint64
		want  string // "" = opens
	}{
		{0, ""}, {1, ""}, {11, ""}, {21, ""},
		{5, "sequences 5..10 needed to resume are gone"},
		{22, "ends at sequence 20 but the resume position is 22"},
	}
	for _, tt := range tests {
		src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S", StartSequence: tt.start})
		if tt.want == "" {
			if err != nil {
				t.Fatalf("start %d: %v", tt.start, err)
			}
			src.Close()
			continue
		}
		if !errors.Is(err, ErrSequenceGap) || !strings.Contains(err.Error(), tt.want) {
			t.Fatalf("start %d: err = %v, want ErrSequenceGap containing %q", tt.start, err, tt.want)
		}
	}
	// The user's explicit choice to skip the gap: delivery starts at 11.
	src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S", StartSequence: 5, AllowGap: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if got := fetchN(t, src, 1); got[0].Sequence != 11 {
		t.Fatalf("AllowGap: first sequence %d, want 11", got[0].Sequence)
	}
}

func TestSourceStopsAtRemovedMessages(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "S", "s.>")
	publishMany(t, c, "s.x", 20)
	st, err := c.JS.Stream(testCtx(t), "S")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteMsg(testCtx(t), 12); err != nil {
		t.Fatal(err)
	}
	t.Run("unfiltered", func(t *testing.T) {
		src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S"})
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		got := fetchN(t, src, 11) // 1..11 arrive
		if got[10].Sequence != 11 {
			t.Fatalf("11th message has sequence %d", got[10].Sequence)
		}
		_, err = src.Fetch(testCtx(t), 10, testTimeout)
		if !errors.Is(err, ErrSequenceGap) || !strings.Contains(err.Error(), "sequences 12..12 were removed") {
			t.Fatalf("Fetch after the deleted message = %v, want ErrSequenceGap", err)
		}
	})
	t.Run("resume at the deleted sequence", func(t *testing.T) {
		src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S", StartSequence: 12})
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		if _, err := src.Fetch(testCtx(t), 10, testTimeout); !errors.Is(err, ErrSequenceGap) {
			t.Fatalf("Fetch = %v, want ErrSequenceGap", err)
		}
	})
	for _, spec := range []SourceSpec{{Stream: "S", AllowGap: true}, {Stream: "S", FilterSubject: "s.x"}} {
		t.Run(fmt.Sprintf("allowgap=%v filter=%q", spec.AllowGap, spec.FilterSubject), func(t *testing.T) {
			src, err := c.OpenSource(testCtx(t), spec)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			got := fetchN(t, src, 19)
			if got[11].Sequence != 13 || got[18].Sequence != 20 {
				t.Fatalf("sequences around the deleted one: %d, last %d", got[11].Sequence, got[18].Sequence)
			}
		})
	}
}

func TestOpenSourceErrors(t *testing.T) {
	c := embedded(t)
	if _, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "NOPE"}); !errors.Is(err, ErrStreamNotFound) {
		t.Fatalf("missing stream: err = %v", err)
	}
	if _, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "a.b"}); !errors.Is(err, ErrInvalidStreamSpec) {
		t.Fatalf("bad name: err = %v", err)
	}
	if _, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S", FilterSubject: "a..b"}); !errors.Is(err, ErrInvalidStreamSpec) {
		t.Fatalf("bad filter: err = %v", err)
	}
}

// TestSourceSurvivesServerRestart checks that a restart of the NATS server
// neither loses nor repeats records: nats.go reconnects and the ordered
// consumer resumes after the last delivered sequence.
func TestSourceSurvivesServerRestart(t *testing.T) {
	dir := t.TempDir()
	srv := embeddedAt(t, dir, RandomPort)
	port := portOf(t, srv.ClientURL())
	c := external(t, srv.ClientURL())
	ensureStream(t, c, "S", "s.>")
	publishMany(t, c, "s.x", 100)
	src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	got := fetchN(t, src, 50)

	srv.Close()
	srv = embeddedAt(t, dir, port)
	waitConnected(t, c)
	publishMany(t, c, "s.x", 50)
	got = append(got, fetchN(t, src, 100)...)
	for i, m := range got {
		if m.Sequence != uint64(i+1) {
			t.Fatalf("message %d has sequence %d: lost or repeated across the restart", i, m.Sequence)
		}
	}
}

// BenchmarkSourceFetch measures reading 100-byte messages in batches of
// 1000 from an embedded server.
func BenchmarkSourceFetch(b *testing.B) {
	c := embedded(b)
	ensureStream(b, c, "B", "b.>")
	payload := make([]byte, 100)
	sink := c.NewSink(0)
	ctx := context.Background()
	for range b.N {
		if err := sink.Publish(ctx, OutMessage{Subject: "b.x", Data: payload}); err != nil {
			b.Fatal(err)
		}
	}
	if err := sink.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	src, err := c.OpenSource(ctx, SourceSpec{Stream: "B"})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	b.SetBytes(int64(len(payload)))
	b.ResetTimer()
	for n := 0; n < b.N; {
		batch, err := src.Fetch(ctx, 1000, testTimeout)
		if err != nil || batch == nil {
			b.Fatalf("Fetch after %d: %v", n, err)
		}
		n += len(batch)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

func TestSourceCheckSequence(t *testing.T) {
	tests := []struct {
		name      string
		checkGaps bool
		last      uint64
		seqs      []uint64
		delivered []uint64
		gap       bool
	}{
		{"contiguous", true, 0, []uint64{1, 2, 3}, []uint64{1, 2, 3}, false},
		{"fresh start after a purge", true, 0, []uint64{40, 41}, []uint64{40, 41}, false},
		{"resume must start at its position", true, 9, []uint64{11}, nil, true},
		{"jump while running", true, 0, []uint64{1, 2, 5}, []uint64{1, 2}, true},
		{"repeat dropped", true, 0, []uint64{1, 2, 2, 1, 3}, []uint64{1, 2, 3}, false},
		{"filtered: jumps allowed", false, 9, []uint64{11, 20}, []uint64{11, 20}, false},
		{"filtered: repeat dropped", false, 0, []uint64{4, 4, 7}, []uint64{4, 7}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Source{checkGaps: tt.checkGaps, last: tt.last, identity: StreamIdentity{Stream: "S"}}
			var delivered []uint64
			var err error
			for _, seq := range tt.seqs {
				var ok bool
				if ok, err = s.checkSequence(seq); err != nil {
					break
				}
				if ok {
					delivered = append(delivered, seq)
				}
			}
			if fmt.Sprint(delivered) != fmt.Sprint(tt.delivered) || errors.Is(err, ErrSequenceGap) != tt.gap {
				t.Fatalf("delivered %v, err %v; want %v, gap %v", delivered, err, tt.delivered, tt.gap)
			}
		})
	}
}
