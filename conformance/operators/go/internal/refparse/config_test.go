package refparse

import (
	"errors"
	"testing"
)

func TestParseCounterConfig(t *testing.T) {
	tests := []struct {
		in   string
		want CounterConfig
		ok   bool
	}{
		{``, CounterConfig{}, true},
		{` `, CounterConfig{}, true},
		{`{}`, CounterConfig{}, true},
		{`{"max_cents":1000}`, CounterConfig{MaxCents: 1000}, true},
		{` { "max_cents" : 0 } `, CounterConfig{}, true},
		{`{"max_cents":-1}`, CounterConfig{}, false},
		{`{"max_cents":"1000"}`, CounterConfig{}, false},
		{`{"max_cents":1000,"other":1}`, CounterConfig{}, false},
		{`{"max":1000}`, CounterConfig{}, false},
		{`max_cents=1000`, CounterConfig{}, false},
		{`[1000]`, CounterConfig{}, false},
	}
	for _, tt := range tests {
		got, err := ParseCounterConfig([]byte(tt.in))
		if tt.ok != (err == nil) || got != tt.want {
			t.Errorf("ParseCounterConfig(%q) = %+v, %v; want %+v, ok=%t", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrConfig) {
			t.Errorf("ParseCounterConfig(%q): %v does not wrap ErrConfig", tt.in, err)
		}
	}
}
