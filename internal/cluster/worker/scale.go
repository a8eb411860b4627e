package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// ScaleKey holds a pending request to change an operator's parallelism.
const ScaleKey = "scale.request"

// ScaleRequest asks the coordinator for a new parallelism of Operator.
type ScaleRequest struct {
	Operator    string    `json:"operator"`
	Parallelism int       `json:"parallelism"`
	Requested   time.Time `json:"requested"`
}

// ErrScale: a scale request the pipeline cannot take.
var ErrScale = errors.New("cannot rescale")

// checkScale refuses a request the pipeline cannot carry out.
func checkScale(cfg *config.Pipeline, r ScaleRequest) error {
	oc := cfg.Operator(r.Operator)
	switch {
	case oc == nil:
		return fmt.Errorf("%w: pipeline %q has no operator %q", ErrScale, cfg.Name, r.Operator)
	case r.Parallelism < 1 || r.Parallelism > oc.MaxParallelism:
		return fmt.Errorf("%w: operator %q: parallelism %d outside 1..%d (its max_parallelism)", ErrScale, r.Operator, r.Parallelism, oc.MaxParallelism)
	}
	for _, s := range cfg.Sinks {
		if s.Mode == config.ModeTransactional {
			// The staged outputs of a restored checkpoint carry the task
			// index of the old parallelism, which names their batches: a
			// rescaled restore would publish them under other batch ids.
			return fmt.Errorf("%w: sink %q is transactional, and rescaling a cluster pipeline with a transactional sink is not supported yet", ErrScale, s.Name)
		}
	}
	return nil
}

// scaleProgressEvery is how often RequestScale reports that it still
// waits.
const scaleProgressEvery = 10 * time.Second

// RequestScale asks the pipeline's coordinator to run operator with
// parallelism p and waits up to wait for the assignment that does,
// telling progress (when not nil) every scaleProgressEvery what it waits
// for: a change may wait for a NATS leader election, a coordinator
// failover and a handover checkpoint.
func RequestScale(ctx context.Context, conn *natsio.Conn, cfg *config.Pipeline, operator string, p int, wait time.Duration, progress func(string)) (assign.Assignment, error) {
	r := ScaleRequest{Operator: operator, Parallelism: p, Requested: time.Now().UTC()}
	if err := checkScale(cfg, r); err != nil {
		return assign.Assignment{}, err
	}
	deadline := time.Now().Add(wait)
	var b *lease.Bucket
	err := retryUntil(ctx, deadline, func() (err error) {
		b, err = lease.OpenBucket(ctx, conn.JS, BucketName(cfg.Name))
		return err
	})
	if err != nil {
		return assign.Assignment{}, fmt.Errorf("pipeline %q: %w: start its workers first (wasmstream worker)", cfg.Name, err)
	}
	err = retryUntil(ctx, deadline, func() error {
		_, err := b.KV().Put(ctx, ScaleKey, mustJSON(r))
		return err
	})
	if err != nil {
		return assign.Assignment{}, fmt.Errorf("write the scale request to bucket %s: %w", b.Name(), err)
	}
	started, told := time.Now(), time.Now()
	for {
		a, err := ctlrec.ReadAssignment(ctx, b)
		if err == nil && parallelismOf(a, operator) == p {
			return a, nil
		}
		if progress != nil && time.Since(told) >= scaleProgressEvery {
			told = time.Now()
			progress(scaleWaiting(a, err, operator, time.Since(started), wait))
		}
		if time.Now().After(deadline) {
			return assign.Assignment{}, fmt.Errorf("no assignment with operator %q at parallelism %d within %s: is a coordinator running? (wasmstream status); the request stays in %s key %s",
				operator, p, wait, b.Name(), ScaleKey)
		}
		if err := sleep(ctx, 250*time.Millisecond); err != nil {
			return assign.Assignment{}, err
		}
	}
}

// scaleWaiting says what a scale request still waits for.
func scaleWaiting(a assign.Assignment, readErr error, operator string, waited, wait time.Duration) string {
	now := fmt.Sprintf("assignment %d runs it with %d tasks", a.Epoch, parallelismOf(a, operator))
	if readErr != nil {
		now = "the assignment cannot be read now: " + readErr.Error()
	}
	return fmt.Sprintf("waiting for the coordinator to rescale operator %s (%s of %s): %s", operator, waited.Round(time.Second), wait, now)
}

func parallelismOf(a assign.Assignment, operator string) int {
	for _, o := range a.Operators {
		if o.Name == operator {
			return len(o.Tasks)
		}
	}
	return 0
}

// readScale returns the pending scale request; false when there is none
// or it cannot be carried out (logged and dropped).
func (c *coordinator) readScale(ctx context.Context) (ScaleRequest, bool) {
	m, err := c.w.bucket.Get(ctx, ScaleKey)
	if err != nil {
		return ScaleRequest{}, false
	}
	var r ScaleRequest
	if err := json.Unmarshal(m.Data, &r); err == nil {
		err = checkScale(c.w.cfg, r)
	}
	if err != nil {
		c.w.log.Error("dropping a scale request", "error", err)
		_ = c.w.bucket.KV().Delete(ctx, ScaleKey)
		return ScaleRequest{}, false
	}
	return r, true
}

// operators is what the next assignment plans for: every operator at the
// parallelism of the assignment in force (the config's before the first),
// changed by a pending scale request.
func (c *coordinator) operators(prev *assign.Assignment, scale ScaleRequest, ok bool) []assign.Operator {
	ops := operatorsOf(c.w.cfg)
	for i := range ops {
		if prev != nil {
			if p := parallelismOf(*prev, ops[i].Name); p > 0 {
				ops[i].Parallelism = p
			}
		}
		if ok && scale.Operator == ops[i].Name {
			ops[i].Parallelism = scale.Parallelism
		}
	}
	return ops
}

// retryUntil runs op until it succeeds, fails for good (a bucket that does
// not exist) or deadline passes: a leader election of the control bucket
// makes its calls time out for seconds (TestNATSFaultsDuringRescale ran
// scale into one).
func retryUntil(ctx context.Context, deadline time.Time, op func() error) error {
	for {
		err := op()
		if err == nil || errors.Is(err, lease.ErrNotFound) || time.Now().After(deadline) {
			return err
		}
		if err := sleep(ctx, 500*time.Millisecond); err != nil {
			return err
		}
	}
}
