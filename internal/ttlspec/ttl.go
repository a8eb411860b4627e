package ttlspec

import (
	"errors"
	"fmt"
	"time"
)

// ErrInvalid is wrapped by every error of this package: a TTL or a config
// word that is out of range.
var ErrInvalid = errors.New("invalid TTL")

// TTL is the time to live of one named state: how long a value stays
// readable after it was written (or read, with OnReadAndWrite), and against
// which clock. The zero values of Update, Visibility and TimeDomain are the
// defaults; Duration must be positive. internal/state/FORMAT.md §3.1 states the rules.
type TTL struct {
	// Duration is the time from the last update to expiry. > 0.
	Duration time.Duration
	// Update says which accesses restart the Duration.
	Update UpdateType
	// Visibility says whether an expired value not yet cleaned up is returned.
	Visibility Visibility
	// TimeDomain is the clock the expiry is measured on.
	TimeDomain TimeDomain
}

// UpdateType says which accesses set a value's expiry to now + Duration.
type UpdateType uint8

// Update types. A Put always sets the expiry; the types differ on reads.
const (
	// OnCreateAndWrite: only writes (Put) set the expiry. Config word
	// "on_create_and_write". The default.
	OnCreateAndWrite UpdateType = iota
	// OnReadAndWrite: a Get that returns a live value extends its expiry
	// too, so a value read often never expires. Config word "on_read_and_write".
	OnReadAndWrite
)

// Visibility says what a Get returns for a value past its expiry.
type Visibility uint8

// Visibilities.
const (
	// NeverReturnExpired: an expired value is absent, and the Get that finds
	// it schedules its removal. Config word "never_return_expired". The default.
	NeverReturnExpired Visibility = iota
	// ReturnExpiredIfNotCleaned: an expired value is returned until cleanup
	// (state's FlushTo of a written value, or Sweep) removes it; cheaper, as
	// a read never writes. Config word "return_expired_if_not_cleaned".
	ReturnExpiredIfNotCleaned
)

// TimeDomain is the clock an expiry is measured on.
type TimeDomain uint8

// Time domains.
const (
	// ProcessingTime: the host clock (state.BackendOptions.Clock) when the
	// record is processed. Config word "processing_time". The default.
	ProcessingTime TimeDomain = iota
	// EventTime: the current record's event time (state's
	// SetCurrentRecord); a record without one (event time 0) uses the host
	// clock. Cleanup measures against the largest event time the backend
	// has seen. Config word "event_time".
	EventTime
)

// The config words, indexed by the constants above.
var (
	updateWords     = [...]string{OnCreateAndWrite: "on_create_and_write", OnReadAndWrite: "on_read_and_write"}
	visibilityWords = [...]string{NeverReturnExpired: "never_return_expired", ReturnExpiredIfNotCleaned: "return_expired_if_not_cleaned"}
	domainWords     = [...]string{ProcessingTime: "processing_time", EventTime: "event_time"}
)

// String returns the config word of u.
func (u UpdateType) String() string { return word(updateWords[:], u) }

// String returns the config word of v.
func (v Visibility) String() string { return word(visibilityWords[:], v) }

// String returns the config word of d.
func (d TimeDomain) String() string { return word(domainWords[:], d) }

// ParseUpdateType returns the UpdateType of a config word. The empty word
// selects the default, so an omitted config attribute needs no special case.
func ParseUpdateType(s string) (UpdateType, error) {
	return parseWord[UpdateType]("update type", updateWords[:], s)
}

// ParseVisibility returns the Visibility of a config word ("" is the default).
func ParseVisibility(s string) (Visibility, error) {
	return parseWord[Visibility]("visibility", visibilityWords[:], s)
}

// ParseTimeDomain returns the TimeDomain of a config word ("" is the default).
func ParseTimeDomain(s string) (TimeDomain, error) {
	return parseWord[TimeDomain]("time domain", domainWords[:], s)
}

func word[T ~uint8](words []string, v T) string {
	if int(v) < len(words) {
		return words[v]
	}
	return fmt.Sprintf("unknown(%d)", uint8(v))
}

func parseWord[T ~uint8](what string, words []string, s string) (T, error) {
	if s == "" {
		return 0, nil
	}
	for i, w := range words {
		if s == w {
			return T(i), nil
		}
	}
	return 0, fmt.Errorf("%w: %s %q is not one of %q", ErrInvalid, what, s, words)
}

// Validate checks that Duration is positive and the enums are known.
func (t TTL) Validate() error {
	switch {
	case t.Duration <= 0:
		return fmt.Errorf("%w: duration %s must be positive; leave the state out of the TTL map for no expiry",
			ErrInvalid, t.Duration)
	case int(t.Update) >= len(updateWords):
		return fmt.Errorf("%w: update type %d is unknown; use %q", ErrInvalid, t.Update, updateWords)
	case int(t.Visibility) >= len(visibilityWords):
		return fmt.Errorf("%w: visibility %d is unknown; use %q", ErrInvalid, t.Visibility, visibilityWords)
	case int(t.TimeDomain) >= len(domainWords):
		return fmt.Errorf("%w: time domain %d is unknown; use %q", ErrInvalid, t.TimeDomain, domainWords)
	}
	return nil
}

// String prints t with its config words.
func (t TTL) String() string {
	return fmt.Sprintf("{Duration: %s, Update: %s, Visibility: %s, TimeDomain: %s}", t.Duration, t.Update, t.Visibility, t.TimeDomain)
}
