package main

import (
	"encoding/json"
	"errors"
	"fmt"
)

// delta is one accepted payment as the merchants stage passes it on.
type delta struct {
	Event   string `json:"event"`
	Region  string `json:"region"`
	Cents   *int64 `json:"cents"`
	Flagged *int64 `json:"flagged"`
}

// errBadDelta is wrapped by every reason to reject a record.
var errBadDelta = errors.New("bad merchant delta")

// parseDelta decodes and validates one record value.
func parseDelta(value []byte) (delta, error) {
	var d delta
	if err := json.Unmarshal(value, &d); err != nil {
		return d, fmt.Errorf("%w: not valid JSON: %v", errBadDelta, err)
	}
	switch {
	case d.Event == "" || d.Region == "":
		return d, fmt.Errorf("%w: event and region are required", errBadDelta)
	case d.Cents == nil || *d.Cents < 0:
		return d, fmt.Errorf("%w: event %s: cents missing or negative", errBadDelta, d.Event)
	case d.Flagged == nil || (*d.Flagged != 0 && *d.Flagged != 1):
		return d, fmt.Errorf("%w: event %s: flagged is not 0 or 1", errBadDelta, d.Event)
	}
	return d, nil
}

// totals are a region's totals, as emitted.
type totals struct {
	Region  string `json:"region"`
	Count   int64  `json:"count"`
	Cents   int64  `json:"cents"`
	Flagged int64  `json:"flagged"`
}
