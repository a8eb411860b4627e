package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/nats-io/nats.go"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/natsio"
)

// deadLetters remembers which input records each operator isolated, and
// commits that decision with the state: a replay then skips the same records
// even when the fault was not deterministic (a timeout).
type deadLetters struct {
	mu  sync.Mutex
	set map[string]map[deadKey]bool // operator -> records
	// published counts, per operator, the dead letters published since Open,
	// whatever the reason (Stats.DeadLettered).
	published map[string]uint64
	// dirty names the operators whose list changed since it was last
	// committed: a checkpoint writes only those, so a checkpoint of
	// unchanged state writes nothing (and a cluster uploads nothing new).
	// The value counts the changes, so that a change made while a
	// checkpoint commits keeps the operator dirty.
	dirty map[string]uint64
}

type deadKey struct {
	Source   string `json:"source"`
	Sequence uint64 `json:"sequence"`
}

func metaDeadLetters(operator string) string { return "engine/deadletters/" + operator }

func (d *deadLetters) load(store *state.Store, ops []config.Operator) error {
	d.set = map[string]map[deadKey]bool{}
	for _, op := range ops {
		d.set[op.Name] = map[deadKey]bool{}
		raw, ok, err := store.GetMeta(metaDeadLetters(op.Name))
		if err != nil || !ok {
			if err != nil {
				return err
			}
			continue
		}
		var keys []deadKey
		if err := json.Unmarshal(raw, &keys); err != nil {
			return fmt.Errorf("operator %q: committed dead-letter list is unreadable: %w", op.Name, err)
		}
		for _, k := range keys {
			d.set[op.Name][k] = true
		}
	}
	return nil
}

func (d *deadLetters) add(op string, k deadKey) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.set[op][k] {
		d.set[op][k] = true
		if d.dirty == nil {
			d.dirty = map[string]uint64{}
		}
		d.dirty[op]++
	}
}

func (d *deadLetters) countPublished(op string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.published == nil {
		d.published = map[string]uint64{}
	}
	d.published[op]++
}

func (d *deadLetters) publishedBy(op string) uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.published[op]
}

func (d *deadLetters) contains(op string, k deadKey) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.set[op][k]
}

func (d *deadLetters) empty(op string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.set[op]) == 0
}

// putChanged writes the lists that changed since their last commit into
// b, sorted; committed marks them clean once b is committed (until then a
// failed checkpoint leaves them to the next one).
func (d *deadLetters) putChanged(b *pebble.Batch) (committed func(), err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	written := maps.Clone(d.dirty)
	for _, op := range slices.Sorted(maps.Keys(written)) {
		list := slices.SortedFunc(maps.Keys(d.set[op]), func(a, b deadKey) int {
			return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Sequence, b.Sequence))
		})
		raw, err := json.Marshal(list)
		if err != nil {
			return nil, err
		}
		if err := state.PutMeta(b, metaDeadLetters(op), raw); err != nil {
			return nil, err
		}
	}
	return func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		for op, n := range written {
			if d.dirty[op] == n {
				delete(d.dirty, op)
			}
		}
	}, nil
}

// skipDeadLettered drops records this operator already isolated in an
// earlier attempt (a replay after a restart).
func (p *Pipeline) skipDeadLettered(op *operator, recs []inputRecord) []inputRecord {
	if p.dead.empty(op.cfg.Name) {
		return recs
	}
	kept := recs[:0:0]
	for _, r := range recs {
		if !p.dead.contains(op.cfg.Name, deadKey{Source: p.sources[r.source].cfg.Name, Sequence: r.msg.Sequence}) {
			kept = append(kept, r)
		}
	}
	return kept
}

// deadLetter publishes an isolated record, with the reason in headers, to
// the operator's dead-letter subject, remembers the decision and counts it.
// Every dead letter goes through here, those of the source (keyFailure) as
// well as those of the tasks, so that Stats counts them all.
func (p *Pipeline) deadLetter(ctx context.Context, op *operator, src *source, m *natsio.Message, reason string) error {
	p.logger.Warn("record sent to dead-letter subject", "operator", op.cfg.Name, "subject", op.cfg.DeadLetterSubject,
		"source", src.cfg.Name, "stream", m.Stream, "sequence", m.Sequence, "error", reason)
	engineHeaders := nats.Header{}
	engineHeaders.Set(HeaderError, reason)
	engineHeaders.Set(HeaderOperator, op.cfg.Name)
	engineHeaders.Set(HeaderSourceStream, m.Stream)
	engineHeaders.Set(HeaderSourceSequence, strconv.FormatUint(m.Sequence, 10))
	engineHeaders.Set(HeaderSourceSubject, m.Subject)
	h := maps.Clone(m.Header)
	if h == nil {
		h = nats.Header{}
	}
	maps.Copy(h, engineHeaders)
	h = p.withProvenance(h)
	if err := p.gate(); err != nil {
		return fmt.Errorf("operator %q: dead letter: %w", op.cfg.Name, err)
	}
	p.dead.add(op.cfg.Name, deadKey{Source: src.cfg.Name, Sequence: m.Sequence})
	msg := fitDeadLetter(natsio.OutMessage{
		Subject: op.cfg.DeadLetterSubject,
		MsgID:   "dlq." + outputMsgID(p.cfg.Name, op.cfg.Name, src.cfg.Name, m.Sequence, 0),
		Data:    m.Data,
		Header:  h,
	}, m, engineHeaders, p.maxPayload())
	err := p.deliver(ctx, msg, execOrigin{seq: m.Sequence, output: -1})
	if err != nil {
		return fmt.Errorf("operator %q: publish to dead-letter subject %s: %w", op.cfg.Name, op.cfg.DeadLetterSubject, err)
	}
	p.dead.countPublished(op.cfg.Name)
	return nil
}

// keyFailure isolates a record whose key cannot be extracted.
// Every worker of a cluster reads the record, and it has no key group:
// the worker running the operator's task 0 isolates it, the others drop it.
func (p *Pipeline) keyFailure(ctx context.Context, op *operator, src *source, m *natsio.Message, err error) error {
	if !op.runsTask(0) {
		return nil
	}
	return p.countDeadLetter(op, reasonKey, p.deadLetter(ctx, op, src, m, "key: "+err.Error()))
}
