//go:build !wasip1

package wasmstream_test

import (
	"testing"
	"time"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

func TestRecordFieldsAndHeaders(t *testing.T) {
	type seen struct {
		key, value string
		input      int
		eventTime  time.Time
		first      string
		found      bool
		missing    bool
		all        []wasmstream.Header
		firstOnly  int
		clockEvent time.Time
	}
	var got seen
	h := harness(t, sdktest.Options{}, func(r *wasmstream.Record) error {
		got = seen{key: string(r.Key), value: string(r.Value), input: r.Input, eventTime: r.EventTime,
			clockEvent: wasmstream.EventTime()}
		got.first, got.found = r.Header("dup")
		_, got.missing = r.Header("absent")
		for n, v := range r.Headers() {
			got.all = append(got.all, wasmstream.Header{Name: n, Value: v})
		}
		for range r.Headers() {
			got.firstOnly++
			break
		}
		return nil
	})
	at := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.FixedZone("x", 3600))
	headers := []wasmstream.Header{{Name: "dup", Value: "1"}, {Name: "other", Value: ""}, {Name: "dup", Value: "2"}}
	mustProcess(t, h, sdktest.Record{Key: []byte("k"), Value: []byte("v"), Input: 3, EventTime: at, Headers: headers})

	if got.key != "k" || got.value != "v" || got.input != 3 {
		t.Errorf("record = %+v", got)
	}
	if !got.eventTime.Equal(at) || got.eventTime.Location() != time.UTC || !got.clockEvent.Equal(at) {
		t.Errorf("event time %v (EventTime() %v), want %v in UTC", got.eventTime, got.clockEvent, at)
	}
	if got.first != "1" || !got.found || got.missing {
		t.Errorf("Header(dup) = %q %v, Header(absent) found %v", got.first, got.found, got.missing)
	}
	if len(got.all) != 3 || got.all[2] != headers[2] {
		t.Errorf("Headers() = %v, want %v", got.all, headers)
	}
	if got.firstOnly != 1 {
		t.Errorf("breaking out of Headers() after one header ran %d iterations", got.firstOnly)
	}
}

func TestProcessingTimeComesFromTheHost(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	var got time.Time
	h := harness(t, sdktest.Options{Clock: func() time.Time { return at }}, func(*wasmstream.Record) error {
		got = wasmstream.ProcessingTime()
		return nil
	})
	mustProcess(t, h, rec("k", ""))
	if !got.Equal(at) {
		t.Fatalf("ProcessingTime() = %v, want the host clock %v", got, at)
	}
}
