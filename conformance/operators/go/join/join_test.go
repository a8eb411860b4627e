//go:build !wasip1

package main

import (
	"testing"

	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

func TestJoinChecksPaymentsAgainstLimits(t *testing.T) {
	h, err := sdktest.New(&join{}, sdktest.Options{Outputs: []string{"out"}})
	if err != nil {
		t.Fatal(err)
	}
	rec := func(input int, v string) sdktest.Record {
		return sdktest.Record{Key: []byte("a"), Value: []byte(v), Input: input}
	}
	res, err := h.Process(
		rec(0, `{"account":"a","event":"e1","cents":5}`),
		rec(1, `10`),
		rec(0, `{"account":"a","event":"e2","cents":10}`),
		rec(0, `{"account":"a","event":"e3","cents":11}`),
		rec(1, `1.5`),
		rec(2, `10`),
	)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"e1,5,none,unknown", "e2,10,10,ok", "e3,11,10,over"}
	if len(res.Outputs) != len(want) || len(res.DeadLetters) != 2 {
		t.Fatalf("outputs %+v, dead letters %+v", res.Outputs, res.DeadLetters)
	}
	for i, w := range want {
		if string(res.Outputs[i].Value) != w {
			t.Errorf("output %d = %s, want %s", i, res.Outputs[i].Value, w)
		}
	}
}
