//go:build !wasip1

package main

import (
	"errors"
	"strings"
	"testing"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

// "loop" and "grow" are left to the host tests: natively they would hang
// or exhaust the test process.

func run(t *testing.T, opts sdktest.Options, value string) (sdktest.Result, error) {
	t.Helper()
	h, err := sdktest.New(&behave{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return h.Process(sdktest.Record{Key: []byte("k"), Value: []byte(value)})
}

func TestBehaviours(t *testing.T) {
	tests := []struct {
		value   string
		opts    sdktest.Options
		outputs int
		dead    string // substring of the dead-letter reason; "" for none
		logs    int
	}{
		{value: "ok", outputs: 1},
		{value: "error", dead: "error requested by the record", logs: 1},
		{value: "bigemit", dead: "TOO_LARGE", logs: 1},
		{value: "manyemit", opts: sdktest.Options{MaxEmitsPerRecord: 10000}, outputs: 10000},
		{value: "manyemit", dead: "emit 64 of 10000: wasmstream: emit \"out\": wasmstream: emit quota of the record exceeded (QUOTA_EXCEEDED)", logs: 1},
		{value: "log", logs: 5},
		{value: "what", dead: `unknown behaviour "what"`, logs: 1},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			res, err := run(t, tt.opts, tt.value)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Outputs) != tt.outputs || len(res.Logs) != tt.logs {
				t.Fatalf("%d outputs, %d logs; want %d and %d", len(res.Outputs), len(res.Logs), tt.outputs, tt.logs)
			}
			if tt.dead == "" && len(res.DeadLetters) != 0 || tt.dead != "" && (len(res.DeadLetters) != 1 || !strings.Contains(res.DeadLetters[0].Reason, tt.dead)) {
				t.Fatalf("dead letters %+v, want reason %q", res.DeadLetters, tt.dead)
			}
		})
	}
}

func TestLogLevels(t *testing.T) {
	res, err := run(t, sdktest.Options{}, "log")
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range res.Logs {
		if l.Level != wasmstream.Level(i) {
			t.Fatalf("log %d at %v, want level %d", i, l.Level, i)
		}
	}
}

func TestTrap(t *testing.T) {
	if _, err := run(t, sdktest.Options{}, "trap"); !errors.Is(err, sdktest.ErrTrap) {
		t.Fatalf("trap: %v, want ErrTrap", err)
	}
}

func TestFailInit(t *testing.T) {
	_, err := sdktest.New(&behave{}, sdktest.Options{Config: []byte("fail-init")})
	if !errors.Is(err, sdktest.ErrInit) || !strings.Contains(err.Error(), "init failure requested") {
		t.Fatalf("fail-init: %v", err)
	}
}
