package checkpoint

import "testing"

func TestEffectStrings(t *testing.T) {
	tests := []struct {
		in   interface{ String() string }
		want string
	}{
		{Process, "process"},
		{Hold, "hold"},
		{ProcessAndLogInFlight, "process+log-inflight"},
		{Action(9), "Action(9)"},
		{Snapshot{3}, "snapshot 3"},
		{Forward{3}, "forward 3"},
		{Release{[]int{1, 0, 1}}, "release [1 0 1]"},
		{Complete{3}, "complete 3"},
		{Abort{3}, "abort 3"},
		{Ignored{ID: 2, Input: 1}, "ignored 2 input=1"},
	}
	for _, tt := range tests {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
