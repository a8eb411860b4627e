//go:build !wasip1

package main

import (
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

// TestDedupModes: both modes drop a repeated id of a key and keep ids of
// other keys; the helper mode declares a TTL, the other none.
func TestDedupModes(t *testing.T) {
	for _, config := range []string{"", `{"ttl_ms":60000}`} {
		h, err := sdktest.New(&dedupOp{}, sdktest.Options{Config: []byte(config), Clock: func() time.Time { return time.Unix(1e9, 0) }})
		if err != nil {
			t.Fatal(err)
		}
		res, err := h.Process(
			sdktest.Record{Key: []byte("a"), Value: []byte(`{"k":"a","id":"42"}`)},
			sdktest.Record{Key: []byte("a"), Value: []byte(`{"k":"a","id":"42"}`)},
			sdktest.Record{Key: []byte("b"), Value: []byte(`{"k":"b","id":"42"}`)},
			sdktest.Record{Key: []byte("b"), Value: []byte(`{"k":"a","id":"43"}`)},
		)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Outputs) != 2 || len(res.DeadLetters) != 1 {
			t.Errorf("config %q: %d outputs, %d dead letters; want 2 and 1", config, len(res.Outputs), len(res.DeadLetters))
		}
		if declared := len(h.Declarations()) > 0; declared != (config != "") {
			t.Errorf("config %q: declarations %+v", config, h.Declarations())
		}
	}
}
