package worker

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// A first join that fails because NATS does not answer (a leader
// election, a frozen node) is tried again until the outage budget ends; a
// refusal is not. A nemesis run saw a worker started during a node's
// freeze exit with "acquire workers.w7 …: context deadline exceeded", and
// another with "watch the members of pipeline …: context deadline
// exceeded".
func TestJoinRetries(t *testing.T) {
	now := time.Now()
	timedOut := fmt.Errorf("join pipeline %q as worker %q: %w", "accept", "w7",
		fmt.Errorf("acquire workers.w7 in bucket wasmstream-accept: %w (checking the key through its leader failed too: x); retry", context.DeadlineExceeded))
	watchTimedOut := fmt.Errorf("watch the members of pipeline %q in bucket %s: %w", "accept", "wasmstream-accept", context.DeadlineExceeded)
	refused := fmt.Errorf("join pipeline %q as worker %q: %w", "accept", "w7", nats.ErrPermissionViolation)
	for _, c := range []struct {
		name   string
		err    error
		retry  bool
		giveUp time.Time
		want   bool
	}{
		{"a time-out within the budget", timedOut, false, now.Add(time.Second), true},
		{"a time-out past the budget", timedOut, false, now.Add(-time.Second), false},
		{"a watch that timed out", watchTimedOut, false, now.Add(time.Second), true},
		{"a refusal", refused, false, now.Add(time.Second), false},
		{"a rejoin retries everything", refused, true, now.Add(-time.Second), true},
	} {
		if got := joinRetries(c.err, c.retry, now, c.giveUp); got != c.want {
			t.Errorf("%s: joinRetries = %v, want %v", c.name, got, c.want)
		}
	}
}
