package acceptance

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	clusterworker "github.com/wasmstream/wasmstream/internal/cluster/worker"
)

// completedLine is one "cluster checkpoint completed" line of the
// coordinator (internal/cluster/worker round.go): bytes is the size of
// every task checkpoint of the checkpoint, bytesNew what it uploaded.
type completedLine struct {
	n               uint64
	start, at       time.Time // claimed (at − duration) and completed
	bytes, bytesNew uint64
	by              string
}

func parseCompleted(l logLine, by string) (completedLine, error) {
	c := completedLine{at: l.at, by: by}
	var err error
	if c.n, err = l.uint("checkpoint"); err != nil {
		return c, err
	}
	if c.bytes, err = l.uint("bytes"); err != nil {
		return c, err
	}
	if c.bytesNew, err = l.uint("bytes_new"); err != nil {
		return c, err
	}
	v, _ := l.field("duration")
	took, err := time.ParseDuration(v)
	if err != nil {
		return c, fmt.Errorf("duration of %q: %w", l.raw, err)
	}
	c.start = c.at.Add(-took)
	return c, nil
}

func (c completedLine) String() string {
	return fmt.Sprintf("checkpoint %d (%s): bytes=%d bytes_new=%d", c.n, c.by, c.bytes, c.bytesNew)
}

// completedLines returns every completion the workers logged, by id.
func (d *deployment) completedLines(t *testing.T) []completedLine {
	t.Helper()
	var out []completedLine
	for _, w := range d.workers {
		for _, l := range w.find(logCompleted) {
			c, err := parseCompleted(l, w.id)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b completedLine) int { return int(a.n) - int(b.n) })
	return out
}

// unchangedCheckpoints is how many checkpoints after the first one with
// the final state the test waits for.
const unchangedCheckpoints = 2

// TestUnchangedCheckpointUploadsLittle: a checkpoint of unchanged state
// uploads less than 5 % of a full one (design §7 phase 1, acceptance 4;
// the Object Store is content-addressed and unchanged files are never
// uploaded again, §5.4). 3 workers process the records; once every output
// is stored, nothing more is published, and the test waits for the first
// cluster checkpoint claimed after that (its bytes: the whole final state,
// the reference) and two more. The last one's bytes_new must be under 5 %
// of the reference's bytes. Both numbers are in the ACCEPTANCE-SUMMARY
// line, with every checkpoint's.
func TestUnchangedCheckpointUploadsLittle(t *testing.T) {
	d := deploy(t)
	events := newEvents(recordCount(), newRand(t))
	d.startWorkers(t, workers)
	d.publish(t, events)
	d.waitOutputs(t, len(events))
	idle := time.Now()

	var after []completedLine
	deadline := time.Now().Add(completionLimit)
	for {
		after = after[:0]
		for _, c := range d.completedLines(t) {
			if !c.start.Before(idle) {
				after = append(after, c)
			}
		}
		if len(after) > unchangedCheckpoints {
			break
		}
		d.requireRunning(t)
		if time.Now().After(deadline) {
			t.Fatalf("%d cluster checkpoints completed within %s of the last output; want %d", len(after), completionLimit, unchangedCheckpoints+1)
		}
		time.Sleep(pollEvery)
	}
	d.stopWorkers(t)
	full, last := after[0], after[len(after)-1]
	ratio := float64(last.bytesNew) / float64(full.bytes)
	var all []string
	for _, c := range d.completedLines(t) {
		all = append(all, c.String())
	}
	t.Logf("ACCEPTANCE-SUMMARY unchanged checkpoint: first checkpoint of the final state %s; %d later with no input, the last %s: "+
		"bytes_new %d = %.3f %% of %d (limit 5 %%); every checkpoint: %s",
		full, len(after)-1, last, last.bytesNew, 100*ratio, full.bytes, summary(all))
	if full.bytes == 0 || ratio >= 0.05 {
		t.Errorf("checkpoint %d of unchanged state uploaded %d bytes, %.1f %% of checkpoint %d's %d bytes: want under 5 %%; "+
			"its files no earlier checkpoint had:\n%s", last.n, last.bytesNew, 100*ratio, full.n, full.bytes, indent(d.newFiles(t, last.n)))
	}
	d.requireModelOutputs(t, "unchanged checkpoints")
	d.requireControl(t, "unchanged checkpoints")
}

// newFiles lists the files of completed checkpoint n's task checkpoints
// that no earlier completed checkpoint has (by content): what n uploaded,
// and why.
func (d *deployment) newFiles(t *testing.T, n uint64) []string {
	t.Helper()
	ctx := ctxFor(t, time.Minute)
	obs, err := d.js.ObjectStore(ctx, clusterworker.ObjectStoreName(pipelineName))
	if err != nil {
		t.Fatalf("the state object store: %v", err)
	}
	type file struct {
		task string
		f    ship.File
	}
	files := map[uint64][]file{}
	for _, m := range d.ctl.complete(t) {
		id, ok := completedID(m.key)
		if !ok || m.op != "" || id > n {
			continue
		}
		c, err := ctlrec.DecodeCompleted(m.data)
		if err != nil {
			t.Fatal(err)
		}
		gm, err := global.ReadManifest(ctx, obs, c.Manifest, c.SHA256)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range gm.Tasks {
			data, err := obs.GetBytes(ctx, p.Object)
			if err != nil {
				t.Fatalf("task manifest %s: %v", p.Object, err)
			}
			tm, err := ship.Decode(data)
			if err != nil {
				t.Fatalf("task manifest %s: %v", p.Object, err)
			}
			for _, f := range tm.Files {
				files[id] = append(files[id], file{task: fmt.Sprintf("%s task %d [%d,%d)", p.Operator, p.Index, tm.Start, tm.End), f: f})
			}
		}
	}
	earlier := map[string]bool{}
	for id, fs := range files {
		if id < n {
			for _, f := range fs {
				earlier[f.f.SHA256] = true
			}
		}
	}
	var out []string
	for _, f := range files[n] {
		if !earlier[f.f.SHA256] {
			out = append(out, fmt.Sprintf("%s: %s, %d bytes, sha256 %.12s", f.task, f.f.Path, f.f.Size, f.f.SHA256))
		}
	}
	return out
}
