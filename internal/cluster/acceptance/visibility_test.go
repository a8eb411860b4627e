package acceptance

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	clusterworker "github.com/wasmstream/wasmstream/internal/cluster/worker"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/natsio"
)

// A transactional sink of a cluster pipeline publishes a task's outputs
// of checkpoint N only after N completed (its fenced completion record
// checkpoint.<N> is stored, design §5.3 step 4), as JetStream atomic
// batches (design §6, check 4). The check below holds the outputs against
// the completion records and the global manifests they name:
//
//   - whole batches: the messages of one batch id are stored contiguously,
//     numbered 1..n, the last one committing it;
//   - not before completion: an output is stored, and even published,
//     only after a completion record of a checkpoint whose task entry of
//     the output's key group covers the output's input (its position on
//     the source is at or past the input's stream sequence). The stream
//     and the control bucket stamp messages with the clock of the node
//     that leads them, all on this machine, and the recorder stamps what
//     it receives with the same clock.

// completion is one completed cluster checkpoint as the control bucket
// stored it: when, and how far each key-group range of the operator had
// read the source in it.
type completion struct {
	n      uint64
	stamp  time.Time
	ranges []rangePosition
}

type rangePosition struct {
	start, end int // key groups [start, end)
	pos        uint64
	pause      time.Duration // the task's processing pause for the snapshot
}

// position is how far the checkpoint covers key group kg; 0 for none.
func (c completion) position(kg int) uint64 {
	for _, r := range c.ranges {
		if kg >= r.start && kg < r.end {
			return r.pos
		}
	}
	return 0
}

// completions reads every completion record the control recorder saw,
// and the global manifest each names.
func (d *deployment) completions(t *testing.T) []completion {
	t.Helper()
	ctx := ctxFor(t, time.Minute)
	obs, err := d.js.ObjectStore(ctx, clusterworker.ObjectStoreName(pipelineName))
	if err != nil {
		t.Fatalf("the state object store: %v", err)
	}
	var out []completion
	for _, m := range d.ctl.complete(t) {
		if _, ok := completedID(m.key); !ok || m.op != "" {
			continue
		}
		c, err := ctlrec.DecodeCompleted(m.data)
		if err != nil {
			t.Fatalf("control bucket seq %d %s: %v", m.seq, m.key, err)
		}
		gm, err := global.ReadManifest(ctx, obs, c.Manifest, c.SHA256)
		if err != nil {
			t.Fatalf("checkpoint %d: %v", c.Checkpoint, err)
		}
		cp := completion{n: c.Checkpoint, stamp: m.stamp}
		for _, op := range gm.Checkpoint.Operators {
			if op.Name != operatorName {
				continue
			}
			for _, e := range op.Tasks {
				cp.ranges = append(cp.ranges, rangePosition{start: e.Start, end: e.End, pos: e.Inputs[sourceName], pause: time.Duration(e.PauseNanos)})
			}
		}
		out = append(out, cp)
	}
	return out
}

// keyGroupOf is the key group the operator gives key: the engine's own
// extractor on the record a key's events carry, and the state's hash.
func keyGroupOf(key string) (int, error) {
	k, err := natsio.KeyExtractor{JSONField: "k"}.Extract(inputSubject, nil, event{key: key}.payload())
	if err != nil {
		return 0, err
	}
	return state.KeyGroup(k, maxParallelism), nil
}

// inputOf parses the input stream sequence out of an output id
// (outputID).
func inputOf(id string) (uint64, bool) {
	rest, ok := strings.CutPrefix(id, pipelineName+"."+operatorName+"."+sourceName+".")
	if !ok {
		return 0, false
	}
	seq, n, ok := strings.Cut(rest, ".")
	if !ok || n != "0" {
		return 0, false
	}
	v, err := strconv.ParseUint(seq, 10, 64)
	return v, err == nil
}

// visibilityReport is the result of checkVisibility.
type visibilityReport struct {
	stored, raw, checkpoints int
	batches                  int // whole batches
	unbatched                int // stored outside any batch (a resend after a batch was refused as committed)
	broken                   int // batches not stored whole
	early                    int // stored before a checkpoint covering their input completed
	rawEarly                 int // published before that
	unknown                  int // outputs the model does not know
	examples                 []string
}

// checkVisibility checks stored and raw outputs against the completions
// (see the comment at the top of the file). m gives each output id's key.
func checkVisibility(stored []storedMsg, raw []rawMsg, done []completion, m *model) visibilityReport {
	r := visibilityReport{stored: len(stored), raw: len(raw), checkpoints: len(done)}
	r.checkBatches(stored)
	done = slices.SortedFunc(slices.Values(done), func(a, b completion) int { return a.stamp.Compare(b.stamp) })
	visibleFrom := func(id string) (time.Time, bool) {
		seq, ok := inputOf(id)
		o, known := m.byID[id]
		if !ok || !known {
			return time.Time{}, false
		}
		kg, err := keyGroupOf(o.K)
		if err != nil {
			return time.Time{}, false
		}
		for _, c := range done {
			if c.position(kg) >= seq {
				return c.stamp, true
			}
		}
		return time.Time{}, true // no checkpoint covers it: never visible
	}
	for _, s := range stored {
		from, ok := visibleFrom(s.msgID)
		switch {
		case !ok:
			r.unknown++
			r.note("stored %s (seq %d): not an output of the model", s.msgID, s.seq)
		case from.IsZero() || s.stamp.Before(from):
			r.early++
			r.note("%s stored at %s (seq %d); the first completed checkpoint covering its input: %s", s.msgID, s.stamp.Format(time.StampMicro), s.seq, stampOrNone(from))
		}
	}
	for _, s := range raw {
		if from, ok := visibleFrom(s.msgID); ok && (from.IsZero() || s.at.Before(from)) {
			r.rawEarly++
			r.note("%s published at %s; the first completed checkpoint covering its input: %s", s.msgID, s.at.Format(time.StampMicro), stampOrNone(from))
		}
	}
	return r
}

func stampOrNone(t time.Time) string {
	if t.IsZero() {
		return "none"
	}
	return "completed " + t.Format(time.StampMicro)
}

// checkBatches counts whole and broken batches among stored (in stream
// order).
func (r *visibilityReport) checkBatches(stored []storedMsg) {
	byID := map[string][]storedMsg{}
	var ids []string
	for _, s := range stored {
		if s.batch.id == "" {
			r.unbatched++
			continue
		}
		if _, ok := byID[s.batch.id]; !ok {
			ids = append(ids, s.batch.id)
		}
		byID[s.batch.id] = append(byID[s.batch.id], s)
	}
	for _, id := range ids {
		if err := wholeBatch(byID[id]); err != nil {
			r.broken++
			r.note("batch %s: %v", id, err)
			continue
		}
		r.batches++
	}
}

// wholeBatch checks that msgs, one batch's stored messages in stream
// order, are the whole batch, stored without a gap.
func wholeBatch(msgs []storedMsg) error {
	for i, s := range msgs {
		switch {
		case s.batch.seq != i+1:
			return fmt.Errorf("message %d of %d (seq %d) has batch sequence %d", i+1, len(msgs), s.seq, s.batch.seq)
		case i > 0 && s.seq != msgs[i-1].seq+1:
			return fmt.Errorf("message %d at stream sequence %d, the one before at %d: interleaved", i+1, s.seq, msgs[i-1].seq)
		case s.batch.commit != (i == len(msgs)-1):
			return fmt.Errorf("message %d of %d (seq %d): commit header %v", i+1, len(msgs), s.seq, s.batch.commit)
		}
	}
	return nil
}

func (r *visibilityReport) note(format string, args ...any) {
	if len(r.examples) < 10 {
		r.examples = append(r.examples, fmt.Sprintf(format, args...))
	}
}

func (r visibilityReport) ok() bool {
	return r.broken == 0 && r.early == 0 && r.rawEarly == 0 && r.unknown == 0 && r.batches > 0
}

func (r visibilityReport) String() string {
	return fmt.Sprintf("%d stored in %d whole batches (%d outside a batch, %d batches not whole), %d raw publishes, %d completed checkpoints: "+
		"%d stored and %d published before a completed checkpoint covered their input, %d unknown",
		r.stored, r.batches, r.unbatched, r.broken, r.raw, r.checkpoints, r.early, r.rawEarly, r.unknown)
}

// requireVisibility checks the transactional visibility of msgs, the
// output stream's messages.
func (d *deployment) requireVisibility(t *testing.T, what string, msgs []storedMsg) {
	t.Helper()
	r := checkVisibility(msgs, d.rec.rawSnapshot(), d.completions(t), d.model)
	t.Logf("ACCEPTANCE-SUMMARY %s: transactional visibility: %s", what, r)
	if !r.ok() {
		t.Errorf("%s: transactional visibility: %s\n%s", what, r, indent(r.examples))
	}
}
