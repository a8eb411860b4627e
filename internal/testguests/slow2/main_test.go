//go:build !wasip1

package main

import (
	"testing"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

func TestCountsPerInput(t *testing.T) {
	h, err := sdktest.New(slow2{}, sdktest.Options{Outputs: []string{"out"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Process(
		sdktest.Record{Key: []byte("a"), Value: []byte("x"), Input: 0},
		sdktest.Record{Key: []byte("a"), Value: []byte("1000"), Input: 1},
		sdktest.Record{Key: []byte("a"), Value: []byte("y"), Input: 0},
		sdktest.Record{Key: []byte("b"), Value: []byte("10"), Input: 1},
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outputs) != 4 || len(res.DeadLetters) != 0 {
		t.Fatalf("outputs %+v, dead letters %+v", res.Outputs, res.DeadLetters)
	}
	if got := string(res.Outputs[2].Value); got != "2" {
		t.Fatalf("third output (second record of a on input 0) = %q, want 2", got)
	}
	for _, c := range []struct {
		key, name string
		want      int64
	}{{"a", "count0", 2}, {"a", "count1", 1}, {"b", "count0", 0}, {"b", "count1", 1}} {
		raw, ok := h.State(c.key, c.name)
		var n int64
		if ok {
			if n, err = wasmstream.Int64Codec.Decode(raw); err != nil {
				t.Fatal(err)
			}
		}
		if n != c.want {
			t.Errorf("%s of %s = %d, want %d", c.name, c.key, n, c.want)
		}
	}
}

func TestUnknownInputFails(t *testing.T) {
	h, err := sdktest.New(slow2{}, sdktest.Options{Outputs: []string{"out"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Process(sdktest.Record{Key: []byte("a"), Value: []byte("1"), Input: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.DeadLetters) != 1 || len(res.Outputs) != 0 {
		t.Fatalf("record on input 2: outputs %+v, dead letters %+v; want one dead letter", res.Outputs, res.DeadLetters)
	}
}

func TestBurnIsDeterministic(t *testing.T) {
	if burn([]byte("1000")) != burn([]byte("1000")) || burn([]byte("1000")) == burn([]byte("999")) {
		t.Fatal("burn must depend only on its iteration count")
	}
	if burn([]byte("not a number")) != 0 {
		t.Fatal("a value that is not a count must burn nothing")
	}
}
