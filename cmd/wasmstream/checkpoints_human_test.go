package main

import (
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/checkpoint"
)

func TestCheckpointsHumanBytes(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"}, {1, "1 B"}, {1023, "1023 B"}, {1024, "1 KiB"}, {1536, "1.5 KiB"},
		{10 * 1024, "10 KiB"}, {12345, "12.1 KiB"}, {1000 * 1024, "1000 KiB"},
		{5 << 20, "5 MiB"}, {3<<30 + 1<<29, "3.5 GiB"}, {1 << 40, "1 TiB"}, {1 << 62, "4 EiB"},
	}
	for _, tt := range tests {
		if got := humanBytes(tt.n); got != tt.want {
			t.Errorf("humanBytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestCheckpointsHumanDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {850, "850ns"}, {1500, "1.5µs"}, {900 * time.Microsecond, "900µs"},
		{1250 * time.Microsecond, "1.25ms"}, {2100 * time.Microsecond, "2.1ms"}, {34 * time.Millisecond, "34ms"},
		{34567 * time.Microsecond, "34.6ms"}, {2500 * time.Millisecond, "2.5s"}, {59 * time.Second, "59s"},
		{125*time.Second + 400*time.Millisecond, "2m5s"}, {-2 * time.Millisecond, "-2ms"},
	}
	for _, tt := range tests {
		if got := humanDuration(int64(tt.d)); got != tt.want {
			t.Errorf("humanDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestCheckpointsFormatColumns(t *testing.T) {
	sources := []checkpoint.SourcePosition{{Name: "payments", LastSequence: 1500}, {Name: "limits", LastSequence: 40}}
	if got := formatPositions(sources); got != "payments=1500 limits=40" {
		t.Errorf("formatPositions = %q", got)
	}
	ops := []checkpoint.OperatorEntry{{Name: "risk", ModuleSHA256: riskModuleSHA256}}
	if got, want := formatOperators(ops), "risk@"+riskModuleSHA256[:12]; got != want {
		t.Errorf("formatOperators = %q, want %q", got, want)
	}
	if got := formatInputs(map[string]uint64{"payments": 7, "limits": 3}); got != "limits=3 payments=7" {
		t.Errorf("formatInputs = %q", got)
	}
	for _, empty := range []string{formatPositions(nil), formatOperators(nil), formatInputs(nil)} {
		if empty != "-" {
			t.Errorf("empty column = %q, want -", empty)
		}
	}
}
