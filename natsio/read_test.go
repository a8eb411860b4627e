package natsio

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestReadStored(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "S", "s.>")
	for i := 1; i <= 10; i++ {
		publishSync(t, c, fmt.Sprintf("s.%d", i%2), fmt.Sprint(i))
	}
	tests := []struct {
		name string
		spec ReadSpec
		want []uint64
	}{
		{"all by stream", ReadSpec{Stream: "S"}, []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"stream found by subject", ReadSpec{Subject: "s.1"}, []uint64{1, 3, 5, 7, 9}},
		{"from", ReadSpec{Stream: "S", From: 8}, []uint64{8, 9, 10}},
		{"past the end", ReadSpec{Stream: "S", From: 11}, nil},
		// A fetch that finds nothing before the first delivery does not
		// end the read: the server still has messages for it. Tests that
		// read outputs once saw none, the first delivery late under load.
		{"first delivery slower than the idle wait", ReadSpec{Subject: "s.0", IdleWait: time.Microsecond}, []uint64{2, 4, 6, 8, 10}},
		{"a filter whose last message is not the stream's", ReadSpec{Stream: "S", Subject: "s.1", IdleWait: time.Microsecond}, []uint64{1, 3, 5, 7, 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []uint64
			err := ReadStored(testCtx(t), c, tt.spec, func(m Message) error {
				got = append(got, m.Sequence)
				return nil
			})
			if err != nil || fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("ReadStored = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// A subject that several streams capture is refused, naming them, rather
// than read from whichever the server lists first (which once printed
// nothing for a wildcard and exited 0).
func TestReadStoredRefusesASubjectOfSeveralStreams(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "TOTALS", "merchant.totals")
	ensureStream(t, c, "IN", "payments.>")
	publishSync(t, c, "merchant.totals", "1")
	err := ReadStored(testCtx(t), c, ReadSpec{Subject: "*.totals"}, func(Message) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "IN, TOTALS") || !strings.Contains(err.Error(), "--stream") {
		t.Fatalf("ReadStored of a subject two streams capture: %v; want an error naming both and --stream", err)
	}
	var got []string
	err = ReadStored(testCtx(t), c, ReadSpec{Subject: "*.totals", Stream: "TOTALS"}, func(m Message) error {
		got = append(got, string(m.Data))
		return nil
	})
	if err != nil || len(got) != 1 {
		t.Fatalf("ReadStored with the stream named = %v, %v; want the one message", got, err)
	}
}

func TestReadStoredStopsOnCallbackErrorAndFollows(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "S", "s.>")
	publishMany(t, c, "s.x", 5)
	stop := errors.New("stop")
	n := 0
	err := ReadStored(testCtx(t), c, ReadSpec{Stream: "S"}, func(Message) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 2 {
		t.Fatalf("callback error: err = %v after %d messages", err, n)
	}
	// Follow keeps reading until the context ends.
	ctx, cancel := context.WithCancel(testCtx(t))
	seen := 0
	err = ReadStored(ctx, c, ReadSpec{Stream: "S", Follow: true}, func(Message) error {
		if seen++; seen == 5 {
			publishSync(t, c, "s.x", "new")
		}
		if seen == 6 {
			cancel()
		}
		return nil
	})
	if seen != 6 || (err != nil && !errors.Is(err, context.Canceled)) {
		t.Fatalf("follow: saw %d messages, err %v", seen, err)
	}
}
