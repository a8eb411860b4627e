package checkpoint

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// The property test drives an Aligner like a task's run loop would, with
// random interleavings of FIFO input channels, and checks the protocol:
//   - every record is processed exactly once;
//   - a record after barrier p on its input is processed only after the
//     snapshot (or abort) of p: no post-barrier record leaks into snapshot p;
//   - a record processed after snapshot s that precedes barrier s on its
//     input is logged as channel state of s, and only such records are
//     logged (a logged post-barrier record would be replayed twice);
//   - once a checkpoint is snapshotted, no record stays held;
//   - each checkpoint emits Snapshot immediately followed by Forward at most
//     once, and ends with exactly one Complete (after both) or Abort.

// propRecord is one record of an input channel. prev is the barrier before
// it on its input (0: none), next the barrier after it (0: none).
type propRecord struct {
	input, seq int
	prev, next uint64
}

// propItem is a record or, if barrier != 0, a barrier on rec.input.
type propItem struct {
	barrier uint64
	rec     propRecord
}

type propRun struct {
	t         *testing.T
	a         *Aligner
	cfg       Config
	processed map[propRecord]int
	held      [][]propRecord
	snapshots map[uint64]int
	forwards  map[uint64]int
	ends      map[uint64]string // "complete" or "abort"
	resolved  map[uint64]bool   // snapshot or abort emitted
	open      bool              // cur is snapshotted and not yet ended
	cur       uint64
}

const propCheckpoints = 4

// propChannels builds each input's FIFO: records, barrier 1, records, ...
func propChannels(rng *rand.Rand, inputs int) [][]propItem {
	chans := make([][]propItem, inputs)
	for i := range chans {
		seq := 0
		for k := uint64(1); k <= propCheckpoints+1; k++ {
			for n := rng.IntN(4); n > 0; n-- {
				next := k
				if k > propCheckpoints {
					next = 0
				}
				chans[i] = append(chans[i], propItem{rec: propRecord{input: i, seq: seq, prev: k - 1, next: next}})
				seq++
			}
			if k <= propCheckpoints {
				chans[i] = append(chans[i], propItem{barrier: k, rec: propRecord{input: i}})
			}
		}
	}
	return chans
}

func checkInterleaving(t *testing.T, seed uint64, inputs int, mode Mode, timeout time.Duration) {
	t.Helper()
	cfg := Config{Inputs: inputs, Mode: mode, AlignmentTimeout: timeout}
	a, err := NewAligner(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, uint64(inputs)))
	chans := propChannels(rng, inputs)
	r := &propRun{t: t, a: a, cfg: cfg, processed: map[propRecord]int{}, held: make([][]propRecord, inputs),
		snapshots: map[uint64]int{}, forwards: map[uint64]int{}, ends: map[uint64]string{}, resolved: map[uint64]bool{}}
	total := 0
	for _, ch := range chans {
		total += len(ch)
	}
	for delivered := 0; delivered < total; {
		if rng.IntN(8) == 0 {
			r.effects(a.Tick(time.Duration(rng.IntN(20)) * time.Millisecond))
			continue
		}
		i := rng.IntN(inputs)
		for len(chans[i]) == 0 {
			i = (i + 1) % inputs
		}
		r.deliver(chans[i][0])
		chans[i] = chans[i][1:]
		delivered++
	}
	r.finish()
}

func (r *propRun) deliver(it propItem) {
	if it.barrier == 0 {
		r.record(it.rec)
		return
	}
	effects, err := r.a.Barrier(it.rec.input, it.barrier)
	if err != nil {
		r.t.Fatalf("Barrier: %v", err)
	}
	r.effects(effects)
}

func (r *propRun) record(rec propRecord) {
	action, err := r.a.Record(rec.input)
	if err != nil {
		r.t.Fatalf("Record: %v", err)
	}
	switch action {
	case Hold:
		if r.cfg.Mode == Unaligned {
			r.t.Fatalf("record %+v held in unaligned mode", rec)
		}
		r.held[rec.input] = append(r.held[rec.input], rec)
	case ProcessAndLogInFlight:
		if r.cfg.Mode == Aligned && r.cfg.AlignmentTimeout == 0 {
			r.t.Fatalf("record %+v logged in flight in aligned mode without timeout", rec)
		}
		id, ok := r.a.InProgress()
		if !ok {
			r.t.Fatalf("record %+v logged in flight with no checkpoint in progress", rec)
		}
		r.process(rec, id)
	default:
		r.process(rec, 0)
	}
}

// process applies rec; loggedFor is the checkpoint it was logged for, or 0.
func (r *propRun) process(rec propRecord, loggedFor uint64) {
	r.processed[rec]++
	if rec.prev != 0 && !r.resolved[rec.prev] {
		r.t.Fatalf("record %+v processed before snapshot or abort of barrier %d", rec, rec.prev)
	}
	precedesCur := rec.next != 0 && rec.next <= r.cur
	if r.open && precedesCur && loggedFor != r.cur {
		r.t.Fatalf("record %+v precedes barrier %d, processed after its snapshot, not logged (logged for %d)", rec, r.cur, loggedFor)
	}
	if loggedFor != 0 && (!r.open || loggedFor != r.cur || !precedesCur) {
		r.t.Fatalf("record %+v logged for checkpoint %d wrongly (open=%v cur=%d)", rec, loggedFor, r.open, r.cur)
	}
}

func (r *propRun) effects(effects []Effect) {
	for k, e := range effects {
		switch e := e.(type) {
		case Snapshot:
			r.snapshots[e.ID]++
			r.resolved[e.ID], r.open, r.cur = true, true, e.ID
		case Forward:
			r.forwards[e.ID]++
			if k == 0 || effects[k-1] != (Snapshot{ID: e.ID}) {
				r.t.Fatalf("forward %d not right after its snapshot: %v", e.ID, effects)
			}
		case Release:
			r.release(e.Inputs)
		case Complete:
			r.end(e.ID, "complete")
			if r.snapshots[e.ID] != 1 || r.forwards[e.ID] != 1 {
				r.t.Fatalf("complete %d after %d snapshots, %d forwards", e.ID, r.snapshots[e.ID], r.forwards[e.ID])
			}
		case Abort:
			r.end(e.ID, "abort")
			r.resolved[e.ID] = true
		}
	}
	for i, h := range r.held {
		if r.open && len(h) > 0 {
			r.t.Fatalf("input %d: %d records still held after snapshot %d", i, len(h), r.cur)
		}
	}
	for id := range r.snapshots {
		if r.snapshots[id] > 1 || r.forwards[id] > 1 {
			r.t.Fatalf("checkpoint %d: %d snapshots, %d forwards", id, r.snapshots[id], r.forwards[id])
		}
	}
}

func (r *propRun) end(id uint64, how string) {
	if prev, ok := r.ends[id]; ok {
		r.t.Fatalf("checkpoint %d ended twice: %s then %s", id, prev, how)
	}
	r.ends[id] = how
	if r.cur == id {
		r.open = false
	}
}

func (r *propRun) release(inputs []int) {
	for _, i := range inputs {
		if len(r.held[i]) == 0 {
			r.t.Fatalf("release of input %d with nothing held", i)
		}
		rec := r.held[i][0]
		r.held[i] = r.held[i][1:]
		r.process(rec, 0)
	}
}

func (r *propRun) finish() {
	if id, ok := r.a.InProgress(); ok {
		r.t.Fatalf("checkpoint %d still in progress after all barriers: %s", id, r.a.State())
	}
	for i, h := range r.held {
		if len(h) > 0 {
			r.t.Fatalf("input %d: %d records still held", i, len(h))
		}
	}
	for rec, n := range r.processed {
		if n != 1 {
			r.t.Fatalf("record %+v processed %d times", rec, n)
		}
	}
	for id := uint64(1); id <= propCheckpoints; id++ {
		if r.ends[id] == "" {
			r.t.Fatalf("checkpoint %d never completed nor aborted", id)
		}
	}
	if r.ends[propCheckpoints] != "complete" {
		r.t.Fatalf("last checkpoint %d: %s, want complete", propCheckpoints, r.ends[propCheckpoints])
	}
}

func TestAlignerInterleavings(t *testing.T) {
	for _, mode := range []Mode{Aligned, Unaligned} {
		for _, timeout := range []time.Duration{0, 10 * time.Millisecond} {
			for inputs := 1; inputs <= 4; inputs++ {
				name := fmt.Sprintf("%s/timeout=%s/inputs=%d", mode, timeout, inputs)
				t.Run(name, func(t *testing.T) {
					for seed := uint64(0); seed < 300; seed++ {
						checkInterleaving(t, seed, inputs, mode, timeout)
					}
				})
			}
		}
	}
}

func FuzzAlignerInterleaving(f *testing.F) {
	f.Add(uint64(1), uint8(2), false, false)
	f.Add(uint64(2), uint8(3), true, false)
	f.Add(uint64(3), uint8(2), false, true)
	f.Fuzz(func(t *testing.T, seed uint64, inputs uint8, unaligned, withTimeout bool) {
		mode, timeout := Aligned, time.Duration(0)
		if unaligned {
			mode = Unaligned
		}
		if withTimeout {
			timeout = 10 * time.Millisecond
		}
		checkInterleaving(t, seed, 1+int(inputs%5), mode, timeout)
	})
}
