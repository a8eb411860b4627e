package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

// defaultTTL applies when the config is empty.
const defaultTTL = 60 * time.Second

// ttlDedup drops a record whose value the key has seen within the TTL.
type ttlDedup struct{ seen *wasmstream.Dedup }

// Init reads the TTL: an empty config, or exactly {"ttl_ms":N} with N >= 1.
func (d *ttlDedup) Init(config []byte) error {
	ttl, err := parseTTL(config)
	if err != nil {
		return err
	}
	d.seen = wasmstream.NewDedup("seen", ttl)
	return nil
}

// parseTTL accepts what OPERATORS.md allows and nothing else.
func parseTTL(config []byte) (time.Duration, error) {
	if len(config) == 0 {
		return defaultTTL, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(config, &fields); err != nil || len(fields) != 1 || fields["ttl_ms"] == nil {
		return 0, fmt.Errorf(`config must be empty or {"ttl_ms":N}, got %q`, config)
	}
	raw := string(fields["ttl_ms"])
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 1 || strings.HasPrefix(raw, "+") {
		return 0, fmt.Errorf("ttl_ms must be an integer >= 1, got %s", raw)
	}
	return time.Duration(n) * time.Millisecond, nil
}

// Process emits the record unless its id is a duplicate within the TTL.
func (d *ttlDedup) Process(r *wasmstream.Record) error {
	dup, err := d.seen.IsDuplicate(string(r.Value))
	if err != nil || dup {
		return err
	}
	return wasmstream.Emit("out", r.Key, r.Value)
}
