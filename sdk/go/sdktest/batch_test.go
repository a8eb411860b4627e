//go:build !wasip1

package sdktest

import (
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/abi"
	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

func TestEncodeBatchDecodesWithABIReader(t *testing.T) {
	at := time.Unix(1700000000, 5)
	in := []Record{
		{Key: []byte("k"), Value: []byte("v"), EventTime: at, Input: 2,
			Headers: []wasmstream.Header{{Name: "a", Value: "1"}}},
		{},
	}
	br, err := abi.NewBatchReader(encodeBatch(in))
	if err != nil || br.Remaining() != 2 {
		t.Fatalf("NewBatchReader: %v, %d records", err, br.Remaining())
	}
	var r abi.Record
	if more, err := br.Next(&r); !more || err != nil {
		t.Fatal(more, err)
	}
	if string(r.Key) != "k" || string(r.Value) != "v" || r.Input != 2 || r.EventTime != at.UnixNano() ||
		string(r.Headers) != string(abi.AppendHeader(nil, "a", "1")) {
		t.Fatalf("first record decoded as %+v", r)
	}
	if more, err := br.Next(&r); !more || err != nil || r.EventTime != 0 || len(r.Key) != 0 {
		t.Fatalf("zero record decoded as %+v (%v, %v)", r, more, err)
	}
	if more, err := br.Next(&r); more || err != nil {
		t.Fatalf("batch does not end after two records: %v, %v", more, err)
	}
}
