package conformance

import (
	"context"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/isolate"
)

// The policy for a failed batch (abi/ABI.md §7.3) is the engine's own,
// internal/isolate; the Isolator runs it without the engine's plumbing
// (NATS publishing, dead-letter subjects, the committed dead-letter set).

// ErrFaultOutsideRecord: the guest failed twice in a row with no record
// current; the engine stops the task rather than blame an innocent record.
var ErrFaultOutsideRecord = isolate.ErrFaultOutsideRecord

// Isolator drives one operator instance through batches the way an engine
// task does: a record that makes the guest fail is isolated (dead-lettered)
// and the rest of the batch runs again, on a new instance if the fault
// discarded the old one.
type Isolator struct {
	inst     *host.Instance
	renew    func(context.Context) (*host.Instance, error)
	restarts int
}

// Isolated is a record the policy took out of a batch: Index is its index
// in the batch passed to Process.
type Isolated = isolate.Isolated

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
	r := isolate.Runner{Inst: iso.inst}
	if iso.renew != nil {
		r.Renew = iso.renewCounted
	}
	res, err := r.Run(ctx, recs)
	iso.inst = r.Inst
	if err != nil {
		return BatchResult{Isolated: res.Isolated}, err
	}
	return BatchResult{Outputs: copyOutputs(res.Outputs), Isolated: res.Isolated}, nil
}

func (iso *Isolator) renewCounted(ctx context.Context) (*host.Instance, error) {
	iso.restarts++
	return iso.renew(ctx)
}

// copyOutputs copies outputs out of the instance's arena (valid only until
// its next Process).
func copyOutputs(outs []host.Output) []host.Output {
	cp := make([]host.Output, len(outs))
	for i, o := range outs {
		o.Key = append([]byte(nil), o.Key...)
		o.Value = append([]byte(nil), o.Value...)
		o.Headers = append([]byte(nil), o.Headers...)
		cp[i] = o
	}
	return cp
}
