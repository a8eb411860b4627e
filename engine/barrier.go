package engine

import (
	"sync"
	"time"
)

// barrier is checkpoint id's barrier on one operator input, injected by a
// source after the last record it routed to the task.
type barrier struct {
	id       uint64
	input    int
	position uint64 // the source's last routed sequence
	ckpt     *pendingCheckpoint
	// overtaking: sent on the task's priority channel, ahead of the records
	// the source routed before it (unaligned mode). The snapshot then holds
	// the input only as far as the task had processed it, and the records
	// it overtook are replayed from JetStream on restore.
	overtaking bool
}

// barrierRequest asks a source to inject the barrier of ckpt. A final
// barrier is the source's last item: it stops reading after it.
type barrierRequest struct {
	ckpt  *pendingCheckpoint
	final bool
}

// taskReport is one task's part of a checkpoint.
type taskReport struct {
	// inputs: source name -> last sequence whose records are in the snapshot.
	inputs    map[string]uint64
	pause     time.Duration
	alignment time.Duration
	unaligned bool
	err       error
}

// pendingCheckpoint collects the source positions and task reports of one
// checkpoint in progress. Sources and tasks report from their goroutines;
// done closes when every one has.
type pendingCheckpoint struct {
	id      uint64
	created time.Time
	final   bool

	mu          sync.Mutex
	sources     map[int]uint64 // source index -> barrier position
	tasks       map[*task]taskReport
	needSources int
	needTasks   int
	done        chan struct{}
	closed      bool
}

func newPendingCheckpoint(id uint64, final bool, sources, tasks int) *pendingCheckpoint {
	c := &pendingCheckpoint{id: id, created: time.Now().UTC(), final: final,
		sources: map[int]uint64{}, tasks: map[*task]taskReport{},
		needSources: sources, needTasks: tasks, done: make(chan struct{})}
	c.checkDone() // nothing to wait for in a pipeline without sources
	return c
}

func (c *pendingCheckpoint) sourceAt(index int, position uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sources[index] = position
	c.checkDone()
}

func (c *pendingCheckpoint) taskDone(t *task, r taskReport) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tasks[t] = r
	c.checkDone()
}

func (c *pendingCheckpoint) checkDone() {
	if !c.closed && len(c.sources) == c.needSources && len(c.tasks) == c.needTasks {
		c.closed = true
		close(c.done)
	}
}

// report returns task t's report; call after done closed.
func (c *pendingCheckpoint) report(t *task) taskReport {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tasks[t]
}

// position returns source index's barrier position; call after done closed.
func (c *pendingCheckpoint) position(index int) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sources[index]
}
