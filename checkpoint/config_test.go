package checkpoint

import (
	"errors"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"one input", Config{Inputs: 1}, true},
		{"unaligned with timeout", Config{Inputs: 3, Mode: Unaligned, AlignmentTimeout: time.Second}, true},
		{"no inputs", Config{Inputs: 0}, false},
		{"unknown mode", Config{Inputs: 2, Mode: Mode(7)}, false},
		{"negative timeout", Config{Inputs: 2, AlignmentTimeout: -time.Second}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewAligner(tt.cfg)
			if tt.ok && err != nil {
				t.Fatalf("NewAligner(%v) = %v, want nil", tt.cfg, err)
			}
			if !tt.ok && !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("NewAligner(%v) = %v, want ErrInvalidConfig", tt.cfg, err)
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range []Mode{Aligned, Unaligned} {
		got, err := ParseMode(m.String())
		if err != nil || got != m {
			t.Fatalf("ParseMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseMode("eventually"); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("ParseMode(eventually) = %v, want ErrInvalidConfig", err)
	}
}
