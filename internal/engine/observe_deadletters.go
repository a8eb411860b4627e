package engine

import (
	"errors"
	"maps"

	"github.com/wasmstream/wasmstream/host"
)

// Dead-letter reasons, the values of the reason label: a small fixed set
// (the dead letter's Wasmstream-Error header has the full message).
const (
	reasonKey           = "key"            // no usable key (missing, not a string, over the limit)
	reasonRejected      = "rejected"       // the guest returned an error for the record
	reasonTrap          = "trap"           // the guest trapped (panic, unreachable, bad memory access)
	reasonTimeout       = "timeout"        // the batch ran past limits.batch_timeout
	reasonMemoryLimit   = "memory_limit"   // the guest grew past limits.memory_pages
	reasonABIMisuse     = "abi_misuse"     // the guest called a host function wrongly
	reasonOutputRefused = "output_refused" // an output that cannot be delivered (over max_payload; no key for the operator reading it)
	reasonOther         = "other"
)

// deadLetterReasonLabels lists every reason, in the order metrics show them.
var deadLetterReasonLabels = []string{reasonKey, reasonRejected, reasonTrap, reasonTimeout, reasonMemoryLimit, reasonABIMisuse, reasonOutputRefused, reasonOther}

// guestReason classifies the failure that isolated a record.
func guestReason(ge *host.GuestError) string {
	for _, k := range []struct {
		kind   error
		reason string
	}{
		{host.ErrRecordFailed, reasonRejected}, {host.ErrTrap, reasonTrap}, {host.ErrTimeout, reasonTimeout},
		{host.ErrMemoryLimit, reasonMemoryLimit}, {host.ErrABIMisuse, reasonABIMisuse}, {host.ErrOutputRefused, reasonOutputRefused},
	} {
		if errors.Is(ge.Kind, k.kind) {
			return k.reason
		}
	}
	return reasonOther
}

// countDeadLetter counts a dead letter of op for reason once err, the
// outcome of its publication, says it was published; it returns err.
func (p *Pipeline) countDeadLetter(op *operator, reason string, err error) error {
	if err != nil {
		return err
	}
	m := &p.metrics
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.deadByReason == nil {
		m.deadByReason = map[deadReasonKey]uint64{}
	}
	m.deadByReason[deadReasonKey{op.cfg.Name, reason}]++
	return nil
}

func (m *pipelineMetrics) deadLettersByReason() map[deadReasonKey]uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.deadByReason)
}
