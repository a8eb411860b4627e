package protocol

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestPropertyRandomInterleavings runs the coordinator and the tasks of a
// simulated pipeline (sources routing records by key to tasks over FIFO
// queues, overtaking barriers on a priority queue, reports delivered in any
// order, persist and publish that may fail, timeouts, cancels, triggers and
// a stop at random moments) and checks after every step:
//   - every snapshot is a consistent cut: the task processed exactly the
//     records routed to it up to each input's position, each once;
//   - an aligned snapshot's positions are its barriers' positions;
//   - one checkpoint at a time, ids increasing; persisted only with every
//     report in; published only when persisted, one publication at a
//     time, in checkpoint order; announced only when published, or, with
//     MaxUnpublished > 0, a periodic checkpoint once persisted; a periodic
//     trigger only while at most MaxUnpublished completed checkpoints are
//     unpublished; the final and the awaited checkpoints end with every
//     completed checkpoint published; failures counted in a row and reset;
//   - a restore from any completed checkpoint (resume points + skip table)
//     followed by a replay of the stream applies every record exactly once;
//   - the run ends (stopped or failed) once a stop was asked for.
func TestPropertyRandomInterleavings(t *testing.T) {
	runs := 400
	if testing.Short() {
		runs = 100
	}
	var completed, unaligned, failed, restored, republished, behind int
	for seed := range uint64(runs) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			s := newSim(t, seed)
			s.run()
			completed, unaligned, failed, restored = completed+s.completed, unaligned+s.unaligned, failed+s.failed, restored+s.restored
			republished += s.republished
			behind += s.behind
		})
	}
	t.Logf("%d runs: %d checkpoints completed (%d restores checked, %d announced before their publication), %d snapshots unaligned, %d checkpoints failed, %d publications retried after an outage",
		runs, completed, restored, behind, unaligned, failed, republished)
	// A property test that never reaches the interesting paths proves nothing.
	if completed < runs || unaligned == 0 || failed == 0 || restored < runs || republished == 0 || behind == 0 {
		t.Fatalf("the simulation is too tame: %d completed, %d unaligned, %d failed, %d restored, %d republished", completed, unaligned, failed, restored, republished)
	}
}

type recordID struct {
	source int
	seq    uint64
}

type simItem struct {
	records []recordID
	input   int
	upTo    uint64
	barrier *Barrier
}

type simSnapshot struct {
	processed map[recordID]bool
	snap      Snapshot
}

type simTask struct {
	p         *Task
	in, prio  []simItem
	held      [][]simItem
	processed map[recordID]int
	routed    [][]uint64 // [source] sequences routed here, in order
	cancels   []uint64
	snapshots map[uint64]simSnapshot
	last      Snapshot
}

type simSource struct {
	next, last, pos uint64
	requests        []InjectBarriers
	stopped         bool
}

type sim struct {
	t       *testing.T
	rng     *rand.Rand
	clock   *ManualClock
	mode    Mode
	coord   *Coordinator
	sources []*simSource
	tasks   []*simTask
	keyOf   func(recordID) int // the task a record routes to
	reports []Event

	// protocol observations
	open       uint64 // checkpoint between InjectBarriers and its end; 0 none
	lastID     uint64
	reported   map[uint64]int // id -> reports delivered
	persisting *Persist
	publishing uint64
	published  uint64
	// maxUnpublished is the coordinator's MaxUnpublished; complete are the
	// persisted checkpoints; awaited those a trigger waits for; cause is
	// the event being stepped.
	maxUnpublished int
	complete       []uint64
	awaited        map[uint64]bool
	cause          Event
	// behind counts checkpoints announced before their publication.
	behind int
	// finalID is the final checkpoint's id once its barriers are injected.
	finalID  uint64
	deferred uint64 // publication deferred by an outage, asked again later
	// republished counts publications asked again after an outage.
	republished int
	inARow      int
	stopAsked   bool
	done        bool
	completed   int
	unaligned   int
	failed      int
	restored    int
	persisted   map[uint64][]uint64 // source barrier positions of each persisted id
}

func newSim(t *testing.T, seed uint64) *sim {
	rng := rand.New(rand.NewPCG(seed, seed*7919+1))
	s := &sim{t: t, rng: rng, clock: &ManualClock{T: epoch}, reported: map[uint64]int{}, persisted: map[uint64][]uint64{},
		awaited: map[uint64]bool{}, maxUnpublished: rng.IntN(4)}
	s.mode = Mode(rng.IntN(2))
	nSources, nTasks := 1+rng.IntN(3), 1+rng.IntN(3)
	keys := map[recordID]int{}
	s.keyOf = func(r recordID) int {
		if k, ok := keys[r]; ok {
			return k
		}
		keys[r] = rng.IntN(nTasks)
		return keys[r]
	}
	for range nSources {
		s.sources = append(s.sources, &simSource{next: 1, last: uint64(10 + rng.IntN(50))})
	}
	timeout := time.Duration(0)
	if rng.IntN(2) == 0 {
		timeout = time.Duration(1+rng.IntN(3)) * time.Second
	}
	for range nTasks {
		p, err := NewTask(TaskConfig{Inputs: nSources, Mode: s.mode, AlignmentTimeout: timeout, Clock: s.clock})
		if err != nil {
			t.Fatal(err)
		}
		s.tasks = append(s.tasks, &simTask{p: p, held: make([][]simItem, nSources), processed: map[recordID]int{},
			routed: make([][]uint64, nSources), snapshots: map[uint64]simSnapshot{}})
	}
	c, err := NewCoordinator(CoordinatorConfig{Sources: nSources, Tasks: nTasks, Mode: s.mode, Interval: time.Duration(1+rng.IntN(4)) * time.Second,
		Timeout: time.Duration(5+rng.IntN(10)) * time.Second, MinPause: time.Duration(rng.IntN(2)) * time.Second, MaxFailures: 3,
		OutageBudget: time.Duration(5+rng.IntN(30)) * time.Second, MaxUnpublished: s.maxUnpublished, FirstID: 1, Where: "sim", Server: "nats://sim", Clock: s.clock})
	if err != nil {
		t.Fatal(err)
	}
	s.coord = c
	return s
}

func (s *sim) run() {
	for step := 0; step < 20000 && !s.done; step++ {
		if !s.stopAsked && step > 50 && s.rng.IntN(400) == 0 {
			s.stopAsked = true
			s.step(Stop{})
			continue
		}
		s.randomStep()
	}
	if !s.done && !s.stopAsked {
		s.stopAsked = true
		s.step(Stop{})
		for step := 0; step < 20000 && !s.done; step++ {
			s.randomStep()
		}
	}
	if !s.done {
		s.t.Fatalf("the run did not end after the stop: %s", s.coord.State())
	}
}

func (s *sim) randomStep() {
	switch s.rng.IntN(10) {
	case 0, 1:
		s.routeSome()
	case 2:
		s.injectSome()
	case 3, 4:
		s.taskStep(s.tasks[s.rng.IntN(len(s.tasks))])
	case 5:
		s.deliverReport()
	case 6:
		s.clock.Advance(time.Duration(s.rng.IntN(1500)) * time.Millisecond)
		s.step(Tick{})
		for _, tk := range s.tasks {
			s.taskActions(tk, tk.p.Tick())
		}
	case 7:
		if s.rng.IntN(5) == 0 {
			s.step(Trigger{})
		}
	case 8:
		s.resolve()
	case 9:
		s.applyCancel(s.tasks[s.rng.IntN(len(s.tasks))])
	}
}

// routeSome routes the next few records of a source to their tasks.
func (s *sim) routeSome() {
	i := s.rng.IntN(len(s.sources))
	src := s.sources[i]
	if src.stopped || src.next > src.last {
		return
	}
	n := 1 + s.rng.IntN(4)
	chunks := make([][]recordID, len(s.tasks))
	var upTo uint64
	for ; n > 0 && src.next <= src.last; n-- {
		r := recordID{source: i, seq: src.next}
		chunks[s.keyOf(r)] = append(chunks[s.keyOf(r)], r)
		upTo = src.next
		src.next++
	}
	for j, recs := range chunks {
		if len(recs) == 0 {
			continue
		}
		tk := s.tasks[j]
		for _, r := range recs {
			tk.routed[i] = append(tk.routed[i], r.seq)
		}
		tk.in = append(tk.in, simItem{records: recs, input: i, upTo: upTo})
	}
	src.pos = upTo
}

// injectSome lets a source take its next barrier request.
func (s *sim) injectSome() {
	i := s.rng.IntN(len(s.sources))
	src := s.sources[i]
	if len(src.requests) == 0 {
		return
	}
	req := src.requests[0]
	src.requests = src.requests[1:]
	for _, tk := range s.tasks {
		b := &Barrier{ID: req.ID, Input: i, Position: src.pos, Overtaking: req.Overtaking}
		if req.Overtaking {
			tk.prio = append(tk.prio, simItem{barrier: b})
		} else {
			tk.in = append(tk.in, simItem{barrier: b})
		}
	}
	s.reports = append(s.reports, SourceReported{ID: req.ID, Source: i, Position: src.pos})
	if req.Final {
		src.stopped = true
	}
}

func (s *sim) taskStep(tk *simTask) {
	var item simItem
	switch {
	case len(tk.prio) > 0 && (len(tk.in) == 0 || s.rng.IntN(10) < 7):
		item, tk.prio = tk.prio[0], tk.prio[1:]
	case len(tk.in) > 0:
		item, tk.in = tk.in[0], tk.in[1:]
	default:
		return
	}
	if item.barrier != nil {
		actions, err := tk.p.Barrier(*item.barrier)
		if err != nil {
			s.t.Fatal(err)
		}
		s.taskActions(tk, actions)
		return
	}
	disp, err := tk.p.Chunk(item.input)
	if err != nil {
		s.t.Fatal(err)
	}
	if disp == Hold {
		tk.held[item.input] = append(tk.held[item.input], item)
		return
	}
	s.process(tk, item)
}

func (s *sim) process(tk *simTask, item simItem) {
	for _, r := range item.records {
		tk.processed[r]++
	}
	if err := tk.p.Processed(item.input, item.upTo); err != nil {
		s.t.Fatal(err)
	}
}

func (s *sim) applyCancel(tk *simTask) {
	if len(tk.cancels) == 0 {
		return
	}
	id := tk.cancels[0]
	tk.cancels = tk.cancels[1:]
	s.taskActions(tk, tk.p.Cancel(id))
}

func (s *sim) taskActions(tk *simTask, actions []TaskAction) {
	released := false
	for _, a := range actions {
		switch a := a.(type) {
		case Snapshot:
			if released {
				s.t.Fatalf("a snapshot after a release in one step: its positions would miss the released chunks")
			}
			s.checkCut(tk, a)
			if a.Unaligned {
				s.unaligned++
			}
			tk.last = a
			tk.snapshots[a.ID] = simSnapshot{processed: s.processedSet(tk), snap: a}
		case Ack:
			j := slices.Index(s.tasks, tk)
			s.reports = append(s.reports, TaskAcked{ID: a.ID, Task: j, Report: TaskReport{Positions: tk.last.Positions, Unaligned: tk.last.Unaligned}})
		case Release:
			released = true
			for _, in := range a.Inputs {
				item := tk.held[in][0]
				tk.held[in] = tk.held[in][1:]
				s.process(tk, item)
			}
		case Forward, Abort, Ignored:
		}
	}
}

// checkCut: the task processed exactly the records routed to it up to each
// position, each once.
func (s *sim) checkCut(tk *simTask, snap Snapshot) {
	want := 0
	for i, seqs := range tk.routed {
		for _, seq := range seqs {
			r := recordID{source: i, seq: seq}
			in := seq <= snap.Positions[i]
			if in {
				want++
			}
			if got := tk.processed[r]; in && got != 1 || !in && got != 0 {
				s.t.Fatalf("snapshot %d %v: record %v processed %d times; cut at %v", snap.ID, snap, r, got, snap.Positions)
			}
		}
	}
	if len(tk.processed) != want {
		s.t.Fatalf("snapshot %d: %d records processed, %d routed up to the cut", snap.ID, len(tk.processed), want)
	}
}

func (s *sim) processedSet(tk *simTask) map[recordID]bool {
	set := map[recordID]bool{}
	for r := range tk.processed {
		set[r] = true
	}
	return set
}

func (s *sim) deliverReport() {
	if len(s.reports) == 0 {
		return
	}
	k := s.rng.IntN(len(s.reports))
	ev := s.reports[k]
	s.reports = slices.Delete(s.reports, k, k+1)
	switch ev := ev.(type) {
	case SourceReported:
		if ev.ID == s.open {
			s.reported[ev.ID]++
		}
	case TaskAcked:
		if ev.ID == s.open {
			s.reported[ev.ID]++
		}
	}
	s.step(ev)
}

// resolve answers a pending persist or publish (both may be pending with
// publication behind the rounds), sometimes with an error.
func (s *sim) resolve() {
	switch {
	case s.persisting != nil && (s.publishing == 0 || s.rng.IntN(2) == 0):
		var err error
		if s.rng.IntN(6) == 0 {
			err = fmt.Errorf("injected: no space left on device")
		}
		id := s.persisting.ID
		s.persisting = nil
		if err == nil {
			s.complete = append(s.complete, id)
		}
		s.step(Persisted{ID: id, Err: err, Outage: err != nil && s.rng.IntN(2) == 0})
	case s.publishing != 0:
		id := s.publishing
		s.publishing = 0
		var err error
		outage := s.rng.IntN(10) == 0
		if s.rng.IntN(100) == 0 || outage {
			err = fmt.Errorf("injected: no answer to the commit")
		}
		if err == nil {
			s.published = id
		}
		s.step(Published{ID: id, Err: err, Outage: outage})
	}
}

func (s *sim) step(ev Event) {
	s.cause = ev
	if _, ok := ev.(Trigger); ok && s.open != 0 {
		s.awaited[s.open] = true
	}
	for _, a := range s.coord.Step(ev) {
		s.coordAction(a)
	}
}

// unpublished counts the completed checkpoints not yet published.
func (s *sim) unpublished() int {
	n := 0
	for _, id := range s.complete {
		if id > s.published {
			n++
		}
	}
	return n
}

// checkVisible: the final and awaited checkpoints, and every checkpoint
// without publication behind the rounds, end with their outputs (and all
// before) visible; the others are complete on disk.
func (s *sim) checkVisible(what string, id uint64, final bool) {
	if s.maxUnpublished == 0 || final || s.awaited[id] {
		if s.published < id {
			s.t.Fatalf("%s %d before its outputs were published (published through %d)", what, id, s.published)
		}
		return
	}
	if !slices.Contains(s.complete, id) {
		s.t.Fatalf("%s %d before it was persisted", what, id)
	}
}

func (s *sim) coordAction(a Action) {
	if s.done {
		s.t.Fatalf("action %s after the run ended", a)
	}
	switch a := a.(type) {
	case InjectBarriers:
		if s.open != 0 || a.ID <= s.lastID {
			s.t.Fatalf("inject %d while %d is open (last %d)", a.ID, s.open, s.lastID)
		}
		s.open, s.lastID = a.ID, a.ID
		_, onDemand := s.cause.(Trigger)
		if a.Final {
			s.finalID = a.ID
		}
		if onDemand {
			s.awaited[a.ID] = true
		} else if n := s.unpublished(); !a.Final && n > s.maxUnpublished {
			s.t.Fatalf("periodic checkpoint %d triggered with %d completed checkpoints unpublished, at most %d allowed", a.ID, n, s.maxUnpublished)
		}
		for _, src := range s.sources {
			src.requests = append(src.requests, a)
		}
	case Cancel:
		for _, tk := range s.tasks {
			tk.cancels = append(tk.cancels, a.ID)
		}
	case Persist:
		s.checkPersist(a)
		s.persisting = &a
	case PublishDeferred:
		s.deferred = a.ID
	case Publish:
		if s.deferred != 0 {
			s.deferred = 0
			s.republished++
		}
		switch {
		case s.publishing != 0:
			s.t.Fatalf("publish %d while %d is being published", a.ID, s.publishing)
		case !slices.Contains(s.complete, a.ID):
			s.t.Fatalf("publish %d before it was persisted", a.ID)
		case a.ID < s.published:
			s.t.Fatalf("publish %d after %d was published: out of order", a.ID, s.published)
		}
		s.publishing = a.ID
	case AckSources:
		s.checkVisible("sources acknowledged through", a.ID, a.ID == s.finalID)
	case Announce:
		s.checkVisible("announce", a.ID, a.ID == s.finalID)
		if s.published < a.ID {
			s.behind++
		}
		s.inARow = 0
		s.completed++
		s.checkRestore(a.ID)
	case MarkCleanStop, Retain:
	case CheckpointFailed:
		s.failed++
		if !a.Outage {
			s.inARow++
		}
		if a.InARow != s.inARow {
			s.t.Fatalf("checkpoint %d failed %d in a row, counted %d", a.ID, a.InARow, s.inARow)
		}
		s.open = 0
	case Fail:
		s.done = true
	case Stopped:
		if !s.stopAsked {
			s.t.Fatal("stopped without a stop")
		}
		if n := s.unpublished(); n > 0 || s.published < a.ID {
			s.t.Fatalf("stopped after %d with %d completed checkpoints unpublished (published through %d)", a.ID, n, s.published)
		}
		s.done = true
	}
	if _, ok := a.(Retain); ok {
		s.open = 0
	}
}

func (s *sim) checkPersist(p Persist) {
	s.persisted[p.ID] = slices.Clone(p.Sources)
	if p.ID != s.open || s.reported[p.ID] != len(s.sources)+len(s.tasks) {
		s.t.Fatalf("persist %d with %d of %d reports in (open %d)", p.ID, s.reported[p.ID], len(s.sources)+len(s.tasks), s.open)
	}
	for j, r := range p.Tasks {
		snap := s.tasks[j].snapshots[p.ID].snap
		if !slices.Equal(r.Positions, snap.Positions) {
			s.t.Fatalf("persist %d: task %d report %v, snapshot %v", p.ID, j, r.Positions, snap.Positions)
		}
		if !r.Unaligned && !slices.Equal(r.Positions, p.Sources) {
			s.t.Fatalf("persist %d: aligned task %d at %v, barriers at %v", p.ID, j, r.Positions, p.Sources)
		}
	}
}

// checkRestore restores checkpoint id (each task one key group) and
// replays every source from its resume point through the skip table: each
// record must end up applied exactly once.
func (s *sim) checkRestore(id uint64) {
	names, index := map[string]uint64{}, map[string]int{}
	for i, pos := range s.persisted[id] {
		name := fmt.Sprintf("s%d", i)
		names[name], index[name] = pos, i
	}
	var ranges []RangePositions
	applied := map[recordID]int{}
	for j, tk := range s.tasks {
		snap := tk.snapshots[id]
		inputs := map[string]uint64{}
		for i, pos := range snap.snap.Positions {
			inputs[fmt.Sprintf("s%d", i)] = pos
		}
		ranges = append(ranges, RangePositions{Start: j, End: j + 1, Inputs: inputs})
		for r := range snap.processed {
			applied[r]++
		}
	}
	resume := ResumePoints(names, ranges)
	skip := NewSkipTable(len(s.tasks), ranges, index, resume)
	for i, src := range s.sources {
		for seq := resume[fmt.Sprintf("s%d", i)]; seq <= src.last; seq++ {
			r := recordID{source: i, seq: seq}
			if !skip.Skip(s.keyOf(r), i, seq) {
				applied[r]++
			}
		}
	}
	s.restored++
	for i, src := range s.sources {
		for seq := uint64(1); seq <= src.last; seq++ {
			if n := applied[recordID{source: i, seq: seq}]; n != 1 {
				s.t.Fatalf("restore from %d: record %d/%d applied %d times (resume %v)", id, i, seq, n, resume)
			}
		}
	}
}
