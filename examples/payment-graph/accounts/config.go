package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// config is the operator's config, from the pipeline config.
type config struct {
	// FlagOverCents flags an account whose total is above it; 0 flags none.
	FlagOverCents int64 `json:"flag_over_cents"`
}

// errConfig is wrapped by every config error.
var errConfig = errors.New("payment-graph accounts config")

// parseConfig reads the optional JSON config. Unknown fields are errors, so
// that a misspelt name does not silently turn the flag off.
func parseConfig(b []byte) (config, error) {
	var c config
	if len(bytes.TrimSpace(b)) == 0 {
		return c, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("%w: want {\"flag_over_cents\": N}: %v", errConfig, err)
	}
	if dec.More() {
		return c, fmt.Errorf("%w: trailing data after the JSON object", errConfig)
	}
	if c.FlagOverCents < 0 {
		return c, fmt.Errorf("%w: flag_over_cents is %d, want 0 (flag nothing) or more", errConfig, c.FlagOverCents)
	}
	return c, nil
}

// flagged reports whether total is over the limit, as the 1 or 0 of the
// output.
func (c config) flagged(total int64) int64 {
	if c.FlagOverCents > 0 && total > c.FlagOverCents {
		return 1
	}
	return 0
}
