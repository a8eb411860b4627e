package refparse

import (
	"bytes"
	"errors"
	"fmt"
)

// ErrConfig is wrapped by every reason counter's config is refused.
var ErrConfig = errors.New(`counter config: want no config or {"max_cents":N} with N >= 0`)

// CounterConfig is counter's config. MaxCents 0 means no limit.
type CounterConfig struct {
	MaxCents int64
}

// ParseCounterConfig reads counter's config as payment-risk does: empty or
// white space only (no limit), or a flat JSON object whose only field may
// be the integer "max_cents", at least 0; {} and 0 mean no limit.
func ParseCounterConfig(b []byte) (CounterConfig, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return CounterConfig{}, nil
	}
	fields, err := ParseObject(b)
	if err != nil {
		return CounterConfig{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	var c CounterConfig
	for _, f := range fields {
		if f.Name != "max_cents" {
			return CounterConfig{}, fmt.Errorf("%w: unknown field %q", ErrConfig, f.Name)
		}
		if c.MaxCents, _, err = f.Integer(); err != nil {
			return CounterConfig{}, fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	if c.MaxCents < 0 {
		return CounterConfig{}, fmt.Errorf("%w: max_cents is %d", ErrConfig, c.MaxCents)
	}
	return c, nil
}
