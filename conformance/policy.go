package conformance

import (
	"context"
	"errors"
	"fmt"

	"github.com/wasmstream/wasmstream/host"
)

// This file is the engine's policy for a failed batch (abi/ABI.md §7.3),
// copied from engine/task.go (task.processBatch and
// task.replaceInstanceIfClosed) without the engine's plumbing: NATS
// publishing, dead-letter subjects and the committed dead-letter set. If
// the engine's policy changes, change this copy with it.

// ErrFaultOutsideRecord: the guest failed twice in a row with no record
// current; the engine stops the task rather than blame an innocent record.
var ErrFaultOutsideRecord = errors.New("guest fails outside any record, twice in a row")

// Isolator drives one operator instance through batches the way an engine
// task does: a record that makes the guest fail is isolated (dead-lettered)
// and the rest of the batch runs again, on a new instance if the fault
// discarded the old one.
type Isolator struct {
	inst     *host.Instance
	renew    func(context.Context) (*host.Instance, error)
	restarts int
}

// Isolated is a record the policy took out of a batch.
type Isolated struct {
	Index int // index in the batch passed to Process
	Err   *host.GuestError
}

// BatchResult is the outcome of one batch under the policy.
type BatchResult struct {
	// Outputs of the run that succeeded, copied; Record is the index in the
	// batch passed to Process.
	Outputs []host.Output
	// Isolated records, in the order the policy took them out.
	Isolated []Isolated
}

// NewIsolator returns an isolator over inst. renew makes a replacement
// instance after a fault closed the current one.
func NewIsolator(inst *host.Instance, renew func(context.Context) (*host.Instance, error)) *Isolator {
	return &Isolator{inst: inst, renew: renew}
}

// Restarts returns how many times a fault replaced the instance.
func (iso *Isolator) Restarts() int { return iso.restarts }

// Close discards the current instance.
func (iso *Isolator) Close(ctx context.Context) { iso.inst.Close(ctx) }

// Process runs recs until a run succeeds or no record is left. An error
// that is not a *host.GuestError (a host failure, e.g. storage) is
// returned as is, as is ErrFaultOutsideRecord; the engine stops the task on
// either.
func (iso *Isolator) Process(ctx context.Context, recs []host.Record) (BatchResult, error) {
	var res BatchResult
	pending := append([]host.Record(nil), recs...)
	index := make([]int, len(recs)) // index[i] = position in recs of pending[i]
	for i := range index {
		index[i] = i
	}
	retried := false
	for len(pending) > 0 {
		outs, err := iso.inst.Process(ctx, pending)
		if err == nil {
			res.Outputs = copyOutputs(outs, index)
			return res, nil
		}
		var ge *host.GuestError
		if !errors.As(err, &ge) {
			return res, err
		}
		if err := iso.replaceIfClosed(ctx); err != nil {
			return res, err
		}
		if ge.Record < 0 {
			// No record was current: blaming one would isolate an innocent
			// record. Retry once on a fresh instance, then stop.
			if retried {
				return res, fmt.Errorf("%w: %w", ErrFaultOutsideRecord, err)
			}
			retried = true
			continue
		}
		if ge.Record >= len(pending) {
			return res, fmt.Errorf("host blamed record %d of a batch of %d: %w", ge.Record, len(pending), err)
		}
		res.Isolated = append(res.Isolated, Isolated{Index: index[ge.Record], Err: ge})
		pending = append(pending[:ge.Record:ge.Record], pending[ge.Record+1:]...)
		index = append(index[:ge.Record:ge.Record], index[ge.Record+1:]...)
	}
	return res, nil
}

func (iso *Isolator) replaceIfClosed(ctx context.Context) error {
	if !iso.inst.Closed() {
		return nil
	}
	iso.restarts++
	inst, err := iso.renew(ctx)
	if err != nil {
		return fmt.Errorf("recreate the instance after a fault: %w", err)
	}
	iso.inst = inst
	return nil
}

// copyOutputs copies outputs out of the instance's arena (valid only until
// its next Process) and maps their record indices back through index.
func copyOutputs(outs []host.Output, index []int) []host.Output {
	cp := make([]host.Output, len(outs))
	for i, o := range outs {
		o.Record = index[o.Record]
		o.Key = append([]byte(nil), o.Key...)
		o.Value = append([]byte(nil), o.Value...)
		o.Headers = append([]byte(nil), o.Headers...)
		cp[i] = o
	}
	return cp
}
