package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// TestNewestOnSubject reads the newest messages of one subject of a real
// stream where other subjects' messages lie between and before them: the
// newest n, newest first, all of them when there are fewer, and fewer but
// never older ones when the request budget runs out.
func TestNewestOnSubject(t *testing.T) {
	port := testutil.FreePort(t)
	startServer(t, port, filepath.Join(t.TempDir(), "jetstream"))
	nc, err := nats.Connect(fmt.Sprintf("nats://127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "DLQ", Subjects: []string{"dlq.>"}})
	if err != nil {
		t.Fatal(err)
	}
	// 30 dead letters of dlq.a, each after 50 of dlq.b, then 500 more of dlq.b.
	for i := 1; i <= 30; i++ {
		for range 50 {
			publishOrFail(ctx, t, js, "dlq.b", "other")
		}
		publishOrFail(ctx, t, js, "dlq.a", fmt.Sprint(i))
	}
	for range 500 {
		publishOrFail(ctx, t, js, "dlq.b", "other")
	}

	for _, c := range []struct {
		subject string
		n       int
		budget  int
		want    []string
	}{
		{"dlq.a", 5, maxDeadLetterRequests, []string{"30", "29", "28", "27", "26"}},
		{"dlq.a", 40, maxDeadLetterRequests, nil}, // nil: all 30, newest first
		{"dlq.c", 5, maxDeadLetterRequests, []string{}},
		{"dlq.a", 5, 2, []string{"30"}}, // the budget ends in the first range: only the newest, found first
	} {
		got, err := newestOnSubjectWithin(ctx, st, c.subject, c.n, c.budget)
		if err != nil {
			t.Fatal(err)
		}
		want := c.want
		if want == nil {
			for i := 30; i >= 1; i-- {
				want = append(want, fmt.Sprint(i))
			}
		}
		if fmt.Sprint(messageData(got)) != fmt.Sprint(want) {
			t.Errorf("newest %d of %s with a budget of %d: %v, want %v", c.n, c.subject, c.budget, messageData(got), want)
		}
	}
}

func publishOrFail(ctx context.Context, t *testing.T, js jetstream.JetStream, subject, data string) {
	t.Helper()
	if _, err := js.Publish(ctx, subject, []byte(data)); err != nil {
		t.Fatal(err)
	}
}

func messageData(msgs []*jetstream.RawStreamMsg) []string {
	data := []string{}
	for _, m := range msgs {
		data = append(data, string(m.Data))
	}
	return data
}
