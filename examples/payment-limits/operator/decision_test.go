package main

import (
	"math"
	"testing"
)

func TestDecide(t *testing.T) {
	tests := []struct {
		name                 string
		amount, spent, limit int64
		known                bool
		want                 decision
		wantSpent            int64
	}{
		{"no limit yet", 100, 0, 0, false, noLimit, 0},
		{"no limit keeps spent", 100, 40, 0, false, noLimit, 40},
		{"under the limit", 100, 0, 500, true, approved, 100},
		{"exactly the limit", 100, 400, 500, true, approved, 500},
		{"one cent over", 101, 400, 500, true, overLimit, 400},
		{"zero limit refuses", 1, 0, 0, true, overLimit, 0},
		{"zero amount at zero limit", 0, 0, 0, true, approved, 0},
		{"limit lowered below spent", 0, 600, 500, true, overLimit, 600},
		{"largest values", math.MaxInt64, 0, math.MaxInt64, true, approved, math.MaxInt64},
		{"largest amount over", math.MaxInt64, 1, math.MaxInt64, true, overLimit, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, spent := decide(tt.amount, tt.spent, tt.limit, tt.known)
			if got != tt.want || spent != tt.wantSpent {
				t.Fatalf("decide(%d, %d, %d, %v) = %s, %d; want %s, %d",
					tt.amount, tt.spent, tt.limit, tt.known, got, spent, tt.want, tt.wantSpent)
			}
		})
	}
}
