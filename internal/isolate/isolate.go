// Package isolate is the policy for a batch that makes an operator's guest
// fail (abi/ABI.md §7.3). The engine's tasks and the conformance runner
// both run it, so there is one copy:
//
//   - a failure while a record is current (*host.GuestError with Record >= 0)
//     isolates that record and runs the rest of the batch again, on a new
//     instance when the fault closed the old one;
//   - a failure outside any record (Record -1) blames none: the batch runs
//     again once on a new instance, and a second such failure in a row is
//     ErrFaultOutsideRecord;
//   - a record with an output the caller cannot deliver (Runner.CheckOutputs,
//     e.g. one over the server's max payload) is isolated the same way: the
//     check runs before the batch's state writes are committed, so the
//     record leaves no state behind, and the instance is kept;
//   - any other error (a host failure, e.g. storage) is not the guest's fault
//     and is returned as is.
//
// What the caller does with an isolated record (dead-letter it, count it),
// before each attempt (tick a clock) and with each attempt's outputs (check
// them) are callbacks of the Runner.
package isolate

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/wasmstream/wasmstream/host"
)

// ErrFaultOutsideRecord: the guest failed twice in a row with no record
// current. Blaming a record would isolate an innocent one, so the caller
// stops instead.
var ErrFaultOutsideRecord = errors.New("guest fails outside any record, twice in a row")

// Runner runs batches on one operator instance under the policy.
type Runner struct {
	// Inst is the instance batches run on. Run replaces it when a fault
	// closed it and leaves the current one here, also when it fails.
	Inst *host.Instance
	// Renew makes a replacement instance after a fault closed Inst.
	Renew func(context.Context) (*host.Instance, error)
	// BeforeAttempt, when not nil, is called before each run of the batch.
	BeforeAttempt func()
	// OnIsolate, when not nil, is called for each isolated record, with its
	// index in the batch passed to Run, before the rest of the batch runs
	// again. An error stops Run and is returned as is.
	OnIsolate func(ctx context.Context, index int, err *host.GuestError) error
	// CheckOutputs, when not nil, vets the outputs of each attempt that the
	// guest completed, before its state writes are committed (their Record
	// is the index in the batch passed to Run). It returns the index of a
	// record to isolate with the reason (a *host.GuestError of kind
	// host.ErrOutputRefused), or -1 to accept the attempt. The outputs it
	// accepted are those Run returns.
	CheckOutputs func(outs []host.Output) (record int, reason string)
}

// Isolated is a record the policy took out of a batch.
type Isolated struct {
	Index int // index in the batch passed to Run
	Err   *host.GuestError
}

// Result is the outcome of one batch.
type Result struct {
	// Outputs of the run that succeeded; Record is the index in the batch
	// passed to Run. They point into the instance's arena: valid until its
	// next Process.
	Outputs []host.Output
	// Isolated records, in the order the policy took them out; also filled
	// when Run fails.
	Isolated []Isolated
}

// Run runs recs until a run succeeds or no record is left. recs is not
// modified. The error is ErrFaultOutsideRecord (wrapping the guest's
// error), a host failure as the instance returned it, an error of Renew or
// OnIsolate, or a host that blamed a record outside the batch.
func (r *Runner) Run(ctx context.Context, recs []host.Record) (Result, error) {
	var res Result
	pending := recs
	var index []int // index[i] = position in recs of pending[i]; nil while none was isolated
	retried := false
	for len(pending) > 0 {
		if r.BeforeAttempt != nil {
			r.BeforeAttempt()
		}
		outs, err := r.Inst.ProcessChecked(ctx, pending, r.check(index))
		if err == nil {
			res.Outputs = outs // check mapped their records back to recs
			return res, nil
		}
		var ge *host.GuestError
		if !errors.As(err, &ge) {
			return res, err
		}
		if err := r.renewIfClosed(ctx); err != nil {
			return res, err
		}
		if ge.Record < 0 {
			if retried {
				return res, fmt.Errorf("%w: %w", ErrFaultOutsideRecord, err)
			}
			retried = true
			continue
		}
		if ge.Record >= len(pending) {
			return res, fmt.Errorf("host blamed record %d of a batch of %d: %w", ge.Record, len(pending), err)
		}
		if index == nil {
			index = identity(len(recs))
		}
		at := index[ge.Record]
		res.Isolated = append(res.Isolated, Isolated{Index: at, Err: ge})
		if r.OnIsolate != nil {
			if err := r.OnIsolate(ctx, at, ge); err != nil {
				return res, err
			}
		}
		// The full slice expressions make append copy: recs stays as it was.
		pending = append(pending[:ge.Record:ge.Record], pending[ge.Record+1:]...)
		index = append(index[:ge.Record:ge.Record], index[ge.Record+1:]...)
	}
	return res, nil
}

// check maps an attempt's outputs back to the batch passed to Run (index
// as in Run) and runs CheckOutputs on them; the record it refuses is
// reported to the instance by its position in the attempt.
func (r *Runner) check(index []int) host.OutputCheck {
	return func(outs []host.Output) (int, string) {
		remap(outs, index)
		if r.CheckOutputs == nil {
			return -1, ""
		}
		at, reason := r.CheckOutputs(outs)
		if at < 0 || index == nil {
			return at, reason
		}
		if i := slices.Index(index, at); i >= 0 {
			return i, reason
		}
		return len(index), reason // not in this attempt: Run reports the bad index
	}
}

func (r *Runner) renewIfClosed(ctx context.Context) error {
	if !r.Inst.Closed() {
		return nil
	}
	if r.Renew == nil {
		return errors.New("recreate the instance after a fault: the runner has no Renew")
	}
	inst, err := r.Renew(ctx)
	if err != nil {
		return fmt.Errorf("recreate the instance after a fault: %w", err)
	}
	r.Inst = inst
	return nil
}

// remap maps the record indices of outs back through index, in place.
func remap(outs []host.Output, index []int) []host.Output {
	if index != nil {
		for i := range outs {
			outs[i].Record = index[outs[i].Record]
		}
	}
	return outs
}

func identity(n int) []int {
	index := make([]int, n)
	for i := range index {
		index[i] = i
	}
	return index
}
