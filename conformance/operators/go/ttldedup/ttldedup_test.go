//go:build !wasip1

package main

import (
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

func TestTTLDedupTracedCase(t *testing.T) {
	now := time.Unix(1e9, 0)
	h, err := sdktest.New(&ttlDedup{}, sdktest.Options{Config: []byte(`{"ttl_ms":60000}`), Clock: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, at := range []time.Duration{0, 30 * time.Second, 65 * time.Second} {
		now = time.Unix(1e9, 0).Add(at)
		res, err := h.Process(sdktest.Record{Key: []byte("a"), Value: []byte("42")})
		if err != nil {
			t.Fatal(err)
		}
		n += len(res.Outputs)
	}
	if n != 2 {
		t.Fatalf("id 42 processed %d times, want 2 (t=0 and t=65 s)", n)
	}
}

func TestTTLDedupConfig(t *testing.T) {
	for config, ok := range map[string]bool{"": true, `{"ttl_ms":1}`: true, `{"ttl_ms":0}`: false,
		`{"ttl_ms":"5"}`: false, `{"ttl_ms":5,"x":1}`: false, `{"ttl_ms":1.5}`: false, `[]`: false} {
		if _, err := parseTTL([]byte(config)); (err == nil) != ok {
			t.Errorf("config %q: err %v, want ok=%v", config, err, ok)
		}
	}
}
