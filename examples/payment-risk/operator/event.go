package main

import (
	"encoding/json"
	"errors"
	"fmt"
)

// event is one payment, as it arrives.
type event struct {
	Account string `json:"account"`
	Event   string `json:"event"`
	Cents   *int64 `json:"cents"` // a pointer tells a missing amount from 0
}

// errBadEvent is wrapped by every reason to reject a record.
var errBadEvent = errors.New("bad payment event")

// parseEvent decodes and validates one record value. maxCents 0 means no
// limit.
func parseEvent(value []byte, maxCents int64) (event, error) {
	var ev event
	if err := json.Unmarshal(value, &ev); err != nil {
		return ev, fmt.Errorf("%w: not valid JSON: %v", errBadEvent, err)
	}
	switch {
	case ev.Account == "":
		return ev, fmt.Errorf("%w: missing account", errBadEvent)
	case ev.Event == "":
		return ev, fmt.Errorf("%w: missing event id", errBadEvent)
	case ev.Cents == nil:
		return ev, fmt.Errorf("%w: event %s: missing cents", errBadEvent, ev.Event)
	case *ev.Cents < 0:
		return ev, fmt.Errorf("%w: event %s: negative cents %d", errBadEvent, ev.Event, *ev.Cents)
	case maxCents > 0 && *ev.Cents > maxCents:
		return ev, fmt.Errorf("%w: event %s: %d cents is over max_cents %d", errBadEvent, ev.Event, *ev.Cents, maxCents)
	}
	return ev, nil
}

// result is what the operator emits for an accepted event.
type result struct {
	Account string `json:"account"`
	Event   string `json:"event"`
	Cents   int64  `json:"cents"`
	Total   int64  `json:"total"`
}
