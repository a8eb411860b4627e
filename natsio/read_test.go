package natsio

import (
	"context"
	"errors"
	"fmt"
	"testing"
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
