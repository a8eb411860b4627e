//go:build !wasip1

package main

import (
	"encoding/binary"
	"testing"

	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

func rec(key, value string, input int) sdktest.Record {
	return sdktest.Record{Key: []byte(key), Value: []byte(value), Input: input}
}

func sumOf(t *testing.T, h *sdktest.Harness, key, name string) int64 {
	t.Helper()
	b, ok := h.State(key, name)
	if !ok {
		return 0
	}
	if len(b) != 8 {
		t.Fatalf("state %s of %s: %d bytes, want 8", name, key, len(b))
	}
	return int64(binary.LittleEndian.Uint64(b))
}

func TestSumsPerKeyAndInput(t *testing.T) {
	h, err := sdktest.New(sum2x{}, sdktest.Options{Outputs: []string{"out"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Process(
		rec("a", `{"k":"a","v":5}`, 0),
		rec("a", `{"k":"a","v":7}`, 1),
		rec("a", `{"k":"a","v":-2}`, 0),
		rec("b", `{"k":"b","v":1}`, 1),
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outputs) != 4 || string(res.Outputs[2].Value) != `{"k":"a","input":0,"v":-2,"sum":3}` {
		t.Fatalf("outputs %+v", res.Outputs)
	}
	for _, c := range []struct {
		key, name string
		want      int64
	}{{"a", "sum-0", 3}, {"a", "sum-1", 7}, {"b", "sum-0", 0}, {"b", "sum-1", 1}} {
		if got := sumOf(t, h, c.key, c.name); got != c.want {
			t.Errorf("%s of %s = %d, want %d", c.name, c.key, got, c.want)
		}
	}
}

func TestBadRecordsFail(t *testing.T) {
	for _, r := range []sdktest.Record{
		rec("a", `not json`, 0),
		rec("a", `{"k":"a"}`, 0),
		rec("a", `{"v":1}`, 0),
		rec("a", `{"k":"b","v":1}`, 0),
		rec("a", `{"k":"a","v":1}`, 2),
	} {
		h, err := sdktest.New(sum2x{}, sdktest.Options{Outputs: []string{"out"}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := h.Process(r)
		if err != nil || len(res.DeadLetters) != 1 || len(res.Outputs) != 0 {
			t.Errorf("record %s on input %d: %+v, %v; want one dead letter", r.Value, r.Input, res, err)
		}
		if got := sumOf(t, h, "a", "sum-0"); got != 0 {
			t.Errorf("record %s: state written (%d) although it failed", r.Value, got)
		}
	}
}

func TestInitRefusesConfig(t *testing.T) {
	if err := (sum2x{}).Init([]byte(`{}`)); err == nil {
		t.Fatal("config accepted")
	}
	if err := (sum2x{}).Init(nil); err != nil {
		t.Fatal(err)
	}
}
