package main

import wasmstream "github.com/wasmstream/wasmstream/sdk/go"

// seen is 0x01 once the key has passed.
var seen = wasmstream.NewValueState("seen", wasmstream.BytesCodec)

// marker is the value of seen.
var marker = []byte{0x01}

// dedup passes the first record of each key.
type dedup struct{}

// Init ignores the config.
func (dedup) Init([]byte) error { return nil }

// Process emits the record unless its key was seen before.
func (dedup) Process(r *wasmstream.Record) error {
	_, found, err := seen.Get()
	if err != nil || found {
		return err
	}
	if err := seen.Put(marker); err != nil {
		return err
	}
	return wasmstream.Emit("out", r.Key, r.Value)
}
