//go:build !wasip1

package wasmstream_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

func TestEmitRecordsOutputs(t *testing.T) {
	h := harness(t, sdktest.Options{Outputs: []string{"out", "audit"}}, func(r *wasmstream.Record) error {
		if err := wasmstream.Emit("out", r.Key, r.Value, wasmstream.Header{Name: "a", Value: "1"},
			wasmstream.Header{Name: "a", Value: "2"}); err != nil {
			return err
		}
		return wasmstream.Emit("audit", nil, []byte("seen "+string(r.Key)))
	})
	res := mustProcess(t, h, rec("k1", "v1"), rec("k2", "v2"))
	want := []sdktest.Output{
		{Output: "out", Key: []byte("k1"), Value: []byte("v1"), Headers: []wasmstream.Header{{Name: "a", Value: "1"}, {Name: "a", Value: "2"}}},
		{Output: "audit", Key: []byte{}, Value: []byte("seen k1")},
		{Output: "out", Key: []byte("k2"), Value: []byte("v2"), Headers: []wasmstream.Header{{Name: "a", Value: "1"}, {Name: "a", Value: "2"}}},
		{Output: "audit", Key: []byte{}, Value: []byte("seen k2")},
	}
	if !reflect.DeepEqual(res.Outputs, want) {
		t.Fatalf("outputs:\n%+v\nwant\n%+v", res.Outputs, want)
	}
}

func TestEmitErrors(t *testing.T) {
	tests := []struct {
		name   string
		opts   sdktest.Options
		emit   func() error
		want   error
		output string
	}{
		{"unknown output", sdktest.Options{Outputs: []string{"out"}},
			func() error { return wasmstream.Emit("outt", nil, nil) }, wasmstream.ErrUnknownOutput, "outt"},
		{"empty output name", sdktest.Options{},
			func() error { return wasmstream.Emit("", nil, nil) }, wasmstream.ErrBadArgument, ""},
		{"output name too long", sdktest.Options{},
			func() error { return wasmstream.Emit(strings.Repeat("o", 256), nil, nil) }, wasmstream.ErrBadArgument, strings.Repeat("o", 256)},
		{"value too large", sdktest.Options{MaxValueLen: 4},
			func() error { return wasmstream.Emit("out", nil, []byte("12345")) }, wasmstream.ErrTooLarge, "out"},
		{"headers too large", sdktest.Options{MaxValueLen: 12}, func() error {
			return wasmstream.Emit("out", nil, nil, wasmstream.Header{Name: "name", Value: "value"})
		}, wasmstream.ErrTooLarge, "out"},
		{"quota", sdktest.Options{MaxEmitsPerRecord: 2}, func() error {
			for range 3 {
				if err := wasmstream.Emit("out", nil, nil); err != nil {
					return err
				}
			}
			return nil
		}, wasmstream.ErrQuotaExceeded, "out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got error
			h := harness(t, tt.opts, func(*wasmstream.Record) error {
				got = tt.emit()
				return nil
			})
			mustProcess(t, h, rec("k", ""))
			var opErr *wasmstream.OpError
			if !errors.Is(got, tt.want) || !errors.As(got, &opErr) || opErr.Op != "emit" || opErr.Name != tt.output {
				t.Fatalf("error %v, want an emit OpError for %q wrapping %v", got, tt.output, tt.want)
			}
		})
	}
}
