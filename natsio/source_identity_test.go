package natsio

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// A filtered source resumed after its position refuses messages removed
// from that position on (deleted, purged by subject): their subject is
// unknown once they are gone, so they may have been records of the filter.
// Other subjects' messages in between are no reason to refuse.
func TestFilteredSourceRefusesRemovedAfterStart(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "S", "s.>")
	publishMany(t, c, "s.other", 5) // 1..5
	publishMany(t, c, "s.in", 10)   // 6..15
	publishMany(t, c, "s.other", 5) // 16..20
	st, err := c.JS.Stream(testCtx(t), "S")
	if err != nil {
		t.Fatal(err)
	}
	if src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S", FilterSubject: "s.in", StartSequence: 9}); err != nil {
		t.Fatalf("nothing removed: %v", err)
	} else {
		src.Close()
	}
	if err := st.DeleteMsg(testCtx(t), 12); err != nil {
		t.Fatal(err)
	}
	if err := st.Purge(testCtx(t), jetstream.WithPurgeSubject("s.in"), jetstream.WithPurgeSequence(8)); err != nil { // 6, 7
		t.Fatal(err)
	}
	for _, tt := range []struct {
		start uint64
		want  string // "" = opens
	}{
		{9, "sequences 12 were removed"},
		{12, "sequences 12 were removed"},
		{13, ""},
		{2, "sequences 6..7, 12 were removed"},
	} {
		src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S", FilterSubject: "s.in", StartSequence: tt.start})
		if tt.want == "" {
			if err != nil {
				t.Fatalf("start %d: %v", tt.start, err)
			}
			src.Close()
			continue
		}
		if err == nil {
			src.Close()
		}
		if !errors.Is(err, ErrSequenceGap) || !strings.Contains(err.Error(), tt.want) {
			t.Fatalf("start %d: err = %v, want ErrSequenceGap containing %q", tt.start, err, tt.want)
		}
	}
}

// The removed sequences a user accepted (AcceptGapsThrough) do not stop a
// source; a removal after them still does.
func TestSourceAcceptsGapsThrough(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "S", "s.>")
	publishMany(t, c, "s.in", 20)
	st, err := c.JS.Stream(testCtx(t), "S")
	if err != nil {
		t.Fatal(err)
	}
	for _, seq := range []uint64{12, 18} {
		if err := st.DeleteMsg(testCtx(t), seq); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S", FilterSubject: "s.in", StartSequence: 10, AcceptGapsThrough: 15}); !errors.Is(err, ErrSequenceGap) ||
		!strings.Contains(err.Error(), "sequences 18 were removed") {
		t.Fatalf("filtered, gaps accepted through 15: err = %v, want ErrSequenceGap for 18 only", err)
	}
	unfiltered, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S", StartSequence: 10, AcceptGapsThrough: 15})
	if err != nil {
		t.Fatal(err)
	}
	defer unfiltered.Close()
	wantSeqList(t, fetchN(t, unfiltered, 7), 10, 11, 13, 14, 15, 16, 17)
	if _, err := unfiltered.Fetch(testCtx(t), 10, testTimeout); !errors.Is(err, ErrSequenceGap) || !strings.Contains(err.Error(), "sequences 18..18 were removed") {
		t.Fatalf("unfiltered, gaps accepted through 15: Fetch after 17 = %v, want ErrSequenceGap for 18", err)
	}
	for _, filter := range []string{"", "s.in"} {
		src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S", FilterSubject: filter, StartSequence: 10, AcceptGapsThrough: 20})
		if err != nil {
			t.Fatalf("filter %q, gaps accepted through 20: %v", filter, err)
		}
		wantSeqList(t, fetchN(t, src, 9), 10, 11, 13, 14, 15, 16, 17, 19, 20)
		src.Close()
	}
}

// A message removed after a filtered source opened, before its first
// delivery, is caught at that delivery: the sequence it skips is checked.
func TestFilteredSourceChecksItsFirstDelivery(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "S", "s.>")
	publishMany(t, c, "s.in", 10)
	src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S", FilterSubject: "s.in", StartSequence: 11})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	seq := publishSync(t, c, "s.other", "x") // 11: not the filter's, but once removed nobody can tell
	st, err := c.JS.Stream(testCtx(t), "S")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteMsg(testCtx(t), seq); err != nil {
		t.Fatal(err)
	}
	publishSync(t, c, "s.in", "y") // 12
	if batch, err := src.Fetch(testCtx(t), 10, testTimeout); len(batch) > 0 || !errors.Is(err, ErrSequenceGap) ||
		!strings.Contains(err.Error(), "sequences 11 were removed") {
		t.Fatalf("Fetch = %d messages, %v; want ErrSequenceGap for 11", len(batch), err)
	}
}

// wantSeqList fails unless got has exactly the sequences want.
func wantSeqList(t *testing.T, got []Message, want ...uint64) {
	t.Helper()
	if fmt.Sprint(seqs(got)) != fmt.Sprint(want) {
		t.Fatalf("sequences %v, want %v", seqs(got), want)
	}
}

// A position checked against one stream is refused on another one with the
// same name (SourceSpec.StreamCreated).
func TestOpenSourceRefusesAnotherStream(t *testing.T) {
	c := embedded(t)
	old := ensureStream(t, c, "S", "s.>").Created
	retentionStream(t, c, "JOBS", jetstream.WorkQueuePolicy, "jobs.>")
	publishMany(t, c, "s.in", 3)
	publishMany(t, c, "jobs.x", 3)
	created := recreate(t, c, "S")
	publishMany(t, c, "s.in", 3)
	_, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S", StartSequence: 2, StreamCreated: old})
	wantRecreatedError(t, err, old, created)
	if src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S", StartSequence: 2, StreamCreated: created}); err != nil {
		t.Fatalf("the stream's own creation time: %v", err)
	} else {
		src.Close()
	}
	jobs, err := c.JS.Stream(testCtx(t), "JOBS")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.OpenAckingSource(testCtx(t), AckingSourceSpec{Stream: "JOBS", Durable: "p", StartSequence: 2, StreamCreated: old})
	wantRecreatedError(t, err, old, jobs.CachedInfo().Created)
}

// A stream recreated while the source waits, whose new incarnation has not
// reached the source's position (nothing is delivered), is noticed by the
// periodic check.
func TestSourceNoticesRecreatedStreamWhileIdle(t *testing.T) {
	defer func(d time.Duration) { identityCheckInterval = d }(identityCheckInterval)
	identityCheckInterval = 50 * time.Millisecond
	c := embedded(t)
	old := ensureStream(t, c, "S", "s.>").Created
	publishMany(t, c, "s.in", 5)
	src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S", FilterSubject: "s.in"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	fetchN(t, src, 5)
	created := recreate(t, c, "S")
	publishMany(t, c, "s.in", 2) // sequences 1, 2: below the position
	wantRecreated(t, src, old, created)

	retentionStream(t, c, "JOBS", jetstream.WorkQueuePolicy, "jobs.>")
	jobs, err := c.JS.Stream(testCtx(t), "JOBS")
	if err != nil {
		t.Fatal(err)
	}
	publishMany(t, c, "jobs.x", 3)
	a := openAcking(t, c, AckingSourceSpec{Stream: "JOBS", Durable: "p", StartSequence: 1})
	fetchAckingN(t, a, 3)
	created = recreate(t, c, "JOBS")
	// The durable consumer goes with the deleted stream, and the pull
	// reports it at once: the source finds the stream deleted, or already
	// created again.
	batch, err := a.Fetch(testCtx(t), 10, testTimeout)
	if len(batch) > 0 || err == nil {
		t.Fatalf("acking source on a recreated stream: Fetch = %d messages, %v", len(batch), err)
	}
	t.Logf("acking source stopped with: %v", err)
	if !errors.Is(err, ErrStreamNotFound) {
		wantRecreatedError(t, err, jobs.CachedInfo().Created, created)
	}
}

func TestFormatSequences(t *testing.T) {
	for _, tt := range []struct {
		seqs []uint64
		want string
	}{
		{[]uint64{12}, "12"},
		{[]uint64{6, 7, 12}, "6..7, 12"},
		{[]uint64{1, 3, 5, 7, 9, 11, 13, 15, 17, 18, 19}, "1, 3, 5, 7, 9, 11, 13, 15 and 3 more"},
	} {
		if got := FormatSequences(tt.seqs); got != tt.want {
			t.Errorf("FormatSequences(%v) = %q, want %q", tt.seqs, got, tt.want)
		}
	}
}

// recreate deletes stream name and creates it again with the same
// configuration; it returns the new creation time.
func recreate(t *testing.T, c *Conn, name string) time.Time {
	t.Helper()
	st, err := c.JS.Stream(testCtx(t), name)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.JS.DeleteStream(testCtx(t), name); err != nil {
		t.Fatal(err)
	}
	cfg := st.CachedInfo().Config
	// The server may still be removing the old store (10049 "error creating
	// store for stream") while a source's consumer reset touches the stream.
	for attempt := 0; ; attempt++ {
		st, err = c.JS.CreateStream(testCtx(t), cfg)
		var api *jetstream.APIError
		if err == nil || !errors.As(err, &api) || api.ErrorCode != 10049 || attempt == 20 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	return st.CachedInfo().Created
}

// A stream deleted and created again while a source reads it: nats.go
// recreates the ordered consumer after the last delivered sequence, on the
// new stream. Nothing of the new stream may be delivered as if it followed
// the old one; the source stops naming both creation times.
func TestSourceStopsWhenStreamIsRecreated(t *testing.T) {
	defer func(d time.Duration) { identityCheckInterval = d }(identityCheckInterval)
	identityCheckInterval = time.Hour // the check before a delivery catches it, not the periodic one
	for _, filter := range []string{"", "s.in"} {
		t.Run("filter="+filter, func(t *testing.T) {
			c := embedded(t)
			old := ensureStream(t, c, "S", "s.>").Created
			publishMany(t, c, "s.in", 5)
			src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S", FilterSubject: filter})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			fetchN(t, src, 5)
			created := recreate(t, c, "S")
			publishMany(t, c, "s.in", 8) // the new stream reaches past the old position
			wantRecreated(t, src, old, created)
		})
	}
}

// wantRecreated fails unless src stops with ErrStreamRecreated naming both
// creation times, without delivering a message first.
func wantRecreated(t *testing.T, src *Source, old, created time.Time) {
	t.Helper()
	batch, err := src.Fetch(testCtx(t), 100, testTimeout)
	if len(batch) > 0 {
		t.Fatalf("the source delivered sequences %d..%d of the recreated stream", batch[0].Sequence, batch[len(batch)-1].Sequence)
	}
	if err == nil {
		t.Fatal("the source did not stop within the timeout")
	}
	t.Logf("stopped with: %v", err)
	wantRecreatedError(t, err, old, created)
}

func wantRecreatedError(t *testing.T, err error, old, created time.Time) {
	t.Helper()
	if !errors.Is(err, ErrStreamRecreated) || !errors.Is(err, ErrSequenceGap) || !strings.Contains(err.Error(), "created again") {
		t.Fatalf("err = %v, want ErrStreamRecreated", err)
	}
	for _, want := range []string{old.Format(time.RFC3339Nano), created.Format(time.RFC3339Nano)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name creation time %s", err, want)
		}
	}
}
