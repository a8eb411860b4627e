package protocol

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// taskDriver plays the task goroutine for scripts: it keeps one FIFO of
// held chunks per input and processes released chunks, as the engine does.
type taskDriver struct {
	clock *ManualClock
	task  *Task
	held  [][]uint64 // per input, the upTo of each held chunk
}

// TestTaskScripts runs testdata/task/*: the task side of the protocol.
//
//	new inputs=N mode=aligned|unaligned timeout=D downstream=N start=a,b
//	chunk input=I upto=S        -> process | hold (a processed chunk is reported)
//	barrier id=N input=I pos=S [overtaking]
//	tick +D                     -> advance the clock, then Tick
//	cancel id=N
//	state
func TestTaskScripts(t *testing.T) {
	datadriven.Walk(t, "testdata/task", func(t *testing.T, path string) {
		var dr *taskDriver
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd == "new" {
				dr = newTaskDriver(t, d)
				return dr.task.State() + "\n"
			}
			if dr == nil {
				t.Fatalf("%s: no task: start with new", d.Pos)
			}
			return dr.run(t, d)
		})
	})
}

func newTaskDriver(t *testing.T, d *datadriven.TestData) *taskDriver {
	clock := &ManualClock{T: epoch}
	mode, err := ParseMode(argString(t, d, "mode", "aligned"))
	if err != nil {
		t.Fatal(err)
	}
	inputs := argInt(t, d, "inputs", 1)
	task, err := NewTask(TaskConfig{Inputs: inputs, Mode: mode, AlignmentTimeout: argDuration(t, d, "timeout", 0),
		Downstream: argInt(t, d, "downstream", 0), Start: argUints(t, d, "start"), Clock: clock})
	if err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	return &taskDriver{clock: clock, task: task, held: make([][]uint64, inputs)}
}

func (dr *taskDriver) run(t *testing.T, d *datadriven.TestData) string {
	var out strings.Builder
	switch d.Cmd {
	case "chunk":
		input, upTo := argInt(t, d, "input", 0), argUint(t, d, "upto")
		disp, err := dr.task.Chunk(input)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		out.WriteString(disp.String() + "\n")
		if disp == Hold {
			dr.held[input] = append(dr.held[input], upTo)
		} else if err := dr.task.Processed(input, upTo); err != nil {
			t.Fatal(err)
		}
	case "barrier":
		b := Barrier{ID: argUint(t, d, "id"), Input: argInt(t, d, "input", 0), Position: argUint(t, d, "pos"), Overtaking: d.HasArg("overtaking")}
		actions, err := dr.task.Barrier(b)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		dr.perform(t, &out, actions)
	case "tick":
		advance(t, d, dr.clock)
		dr.perform(t, &out, dr.task.Tick())
	case "cancel":
		dr.perform(t, &out, dr.task.Cancel(argUint(t, d, "id")))
	case "state":
	default:
		t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
	}
	if dl, ok := dr.task.Deadline(); ok {
		fmt.Fprintf(&out, "deadline: t=%s\n", dl.Sub(epoch))
	}
	out.WriteString("state: " + dr.task.State() + "\n")
	return out.String()
}

// perform prints the actions and carries out the releases.
func (dr *taskDriver) perform(t *testing.T, out *strings.Builder, actions []TaskAction) {
	for _, a := range actions {
		out.WriteString(a.String() + "\n")
		rel, ok := a.(Release)
		if !ok {
			continue
		}
		for _, in := range rel.Inputs {
			upTo := dr.held[in][0]
			dr.held[in] = dr.held[in][1:]
			if err := dr.task.Processed(in, upTo); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(out, "  processed input=%d upto=%d\n", in, upTo)
		}
	}
}
