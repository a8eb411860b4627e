package engine

import (
	"testing"
	"time"
)

func TestRateRing(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tests := []struct {
		name       string
		counts     []uint64 // one a second from t0
		size       int
		wantRate   float64
		wantWindow time.Duration
	}{
		{"no sample", nil, 3, 0, 0},
		{"one sample", []uint64{5}, 3, 0, 0},
		{"steady", []uint64{0, 10, 20}, 3, 10, 2 * time.Second},
		{"only the last samples count", []uint64{0, 1000, 1000, 1010, 1020}, 3, 10, 2 * time.Second},
		{"idle now after a burst", []uint64{0, 500, 500, 500, 500}, 3, 0, 2 * time.Second},
		{"a count that went back (a restart) is no negative rate", []uint64{50, 0}, 3, 0, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRateRing(tt.size)
			for i, c := range tt.counts {
				r.add(t0.Add(time.Duration(i)*time.Second), c)
			}
			rate, window := r.rate()
			if rate != tt.wantRate || window != tt.wantWindow {
				t.Fatalf("rate %v over %v, want %v over %v", rate, window, tt.wantRate, tt.wantWindow)
			}
		})
	}
}
