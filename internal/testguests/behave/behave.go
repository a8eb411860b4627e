package main

import (
	"errors"
	"fmt"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

// count counts the "ok" records per key.
var count = wasmstream.NewValueState("count", wasmstream.Int64Codec)

// hoard keeps what "grow" allocates reachable, so no collection frees it.
var hoard [][]byte

// errAsked is the error of an "error" record.
var errAsked = errors.New("behave: error requested by the record")

type behave struct{}

// Init fails for config "fail-init".
func (*behave) Init(config []byte) error {
	if string(config) == "fail-init" {
		return errors.New("behave: init failure requested by config")
	}
	return nil
}

// Process does what the record's value names.
func (*behave) Process(r *wasmstream.Record) error {
	switch string(r.Value) {
	case "ok":
		return ok(r)
	case "trap":
		panic("behave: trap requested by the record")
	case "loop":
		loop()
	case "grow":
		grow()
	case "error":
		return errAsked
	case "bigemit":
		return wasmstream.Emit("out", r.Key, make([]byte, 2<<20+1))
	case "manyemit":
		return manyEmit(r)
	case "log":
		logAll()
		return nil
	case "garbage":
		return garbage(r)
	}
	return fmt.Errorf("behave: unknown behaviour %q", r.Value)
}

func ok(r *wasmstream.Record) error {
	n, _, err := count.Get()
	if err != nil {
		return err
	}
	if err := count.Put(n + 1); err != nil {
		return err
	}
	return wasmstream.Emit("out", r.Key, r.Value)
}

// spin is a package variable so that the compiler cannot prove the loop
// has no effect.
var spin uint64

func loop() {
	for {
		spin++
	}
}

func grow() {
	for {
		hoard = append(hoard, make([]byte, 1<<20))
	}
}

// lastGarbage keeps the newest allocation reachable so it cannot be
// optimised away; every older one is garbage.
var lastGarbage []byte

// garbage allocates 1 KiB that becomes garbage at the next record, then
// behaves like "ok": the memory-boundedness test's workload.
func garbage(r *wasmstream.Record) error {
	lastGarbage = make([]byte, 1<<10)
	lastGarbage[len(lastGarbage)-1] = 1
	return ok(r)
}

func manyEmit(r *wasmstream.Record) error {
	for i := range 10000 {
		if err := wasmstream.Emit("out", r.Key, r.Value); err != nil {
			return fmt.Errorf("behave: emit %d of 10000: %w", i, err)
		}
	}
	return nil
}

func logAll() {
	for _, l := range []wasmstream.Level{wasmstream.LevelTrace, wasmstream.LevelDebug,
		wasmstream.LevelInfo, wasmstream.LevelWarn, wasmstream.LevelError} {
		wasmstream.Log(l, "behave: log at "+l.String())
	}
}
