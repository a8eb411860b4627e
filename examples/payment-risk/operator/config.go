package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// config is the operator's config, from the pipeline config.
type config struct {
	// MaxCents rejects events above this amount; 0 means no limit.
	MaxCents int64 `json:"max_cents"`
}

// errConfig is wrapped by every config error.
var errConfig = errors.New("payment-risk config")

// parseConfig reads the optional JSON config. Unknown fields are errors, so
// that a misspelt "max_cents" does not silently turn the limit off.
func parseConfig(b []byte) (config, error) {
	var c config
	if len(bytes.TrimSpace(b)) == 0 {
		return c, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("%w: want {\"max_cents\": N}: %v", errConfig, err)
	}
	if dec.More() {
		return c, fmt.Errorf("%w: trailing data after the JSON object", errConfig)
	}
	if c.MaxCents < 0 {
		return c, fmt.Errorf("%w: max_cents is %d, want 0 (no limit) or more", errConfig, c.MaxCents)
	}
	return c, nil
}
