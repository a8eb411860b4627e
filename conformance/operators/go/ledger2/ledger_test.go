//go:build !wasip1

package main

import (
	"errors"
	"testing"

	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

func TestMigrateTotal(t *testing.T) {
	for _, c := range []struct {
		old  string
		from int32
		want string
		keep bool
		err  bool
	}{
		{"12", 1, `{"total":12}`, true, false},
		{"0", 1, "", false, false},
		{"-2", 1, "", false, true},
		{"x", 1, "", false, true},
		{"12", 2, "", false, true},
	} {
		out, keep, err := migrateTotal([]byte("total"), c.from, []byte(c.old))
		if string(out) != c.want || keep != c.keep || (err != nil) != c.err {
			t.Errorf("%q from %d: got %q, %v, %v", c.old, c.from, out, keep, err)
		}
	}
	if _, _, err := migrateTotal(nil, 1, []byte("-2")); !errors.Is(err, errNegative) {
		t.Errorf("a negative total: %v, want errNegative", err)
	}
}

func TestLedger2AddsAmountsInTheNewEncoding(t *testing.T) {
	h, err := sdktest.New(&ledger{}, sdktest.Options{Outputs: []string{"out"}})
	if err != nil {
		t.Fatal(err)
	}
	h.SetState("a", "total", []byte(`{"total":10}`))
	rec := func(v string) sdktest.Record { return sdktest.Record{Key: []byte("a"), Value: []byte(v)} }
	res, err := h.Process(rec("1"), rec("-20"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outputs) != 1 || len(res.DeadLetters) != 1 {
		t.Fatalf("outputs %+v, dead letters %+v", res.Outputs, res.DeadLetters)
	}
	if v, _ := h.State("a", "total"); string(v) != `{"total":11}` {
		t.Fatalf("total %q, want {\"total\":11}", v)
	}
}
