package protocol

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// TestCoordinatorScripts runs testdata/coordinator/*: the coordinator side.
//
//	new sources=N tasks=N mode=M interval=D timeout=D minpause=D maxfailures=N outagebudget=D first=N unpublished=N
//	tick +D | trigger [id=N] | stop
//	source id=N src=I pos=S
//	ack id=N task=J positions=a,b [unaligned] [err=WORDS_JOINED_BY_UNDERSCORES]
//	persisted id=N [err=WORDS_JOINED_BY_UNDERSCORES [outage|givenup]]
//	published id=N [err=WORDS_JOINED_BY_UNDERSCORES [outage]]
//	state
//
// outagebudget defaults to 30s; outage marks the error as NATS being
// unreachable, as the driver's classifier would; givenup as the cluster
// coordinator having given the checkpoint up.
func TestCoordinatorScripts(t *testing.T) {
	datadriven.Walk(t, "testdata/coordinator", func(t *testing.T, path string) {
		var c *Coordinator
		clock := &ManualClock{T: epoch}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd == "new" {
				clock.T = epoch
				c = newScriptCoordinator(t, d, clock)
				return describeCoordinator(c, clock)
			}
			if c == nil {
				t.Fatalf("%s: no coordinator: start with new", d.Pos)
			}
			ev := coordinatorEvent(t, d, clock)
			var out strings.Builder
			if ev != nil {
				out.WriteString(lines(c.Step(ev)))
			}
			out.WriteString(describeCoordinator(c, clock))
			return out.String()
		})
	})
}

func newScriptCoordinator(t *testing.T, d *datadriven.TestData, clock *ManualClock) *Coordinator {
	mode, err := ParseMode(argString(t, d, "mode", "aligned"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCoordinator(CoordinatorConfig{Sources: argInt(t, d, "sources", 1), Tasks: argInt(t, d, "tasks", 1), Mode: mode,
		Interval: argDuration(t, d, "interval", 0), Timeout: argDuration(t, d, "timeout", 0), MinPause: argDuration(t, d, "minpause", 0),
		MaxFailures: argInt(t, d, "maxfailures", 3), OutageBudget: argDuration(t, d, "outagebudget", 30*time.Second),
		MaxUnpublished: argInt(t, d, "unpublished", 0), FirstID: uint64(argInt(t, d, "first", 1)),
		Where: "data/checkpoints", Server: "nats://db1:4222", Clock: clock})
	if err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	return c
}

func coordinatorEvent(t *testing.T, d *datadriven.TestData, clock *ManualClock) Event {
	id := argUint(t, d, "id")
	switch d.Cmd {
	case "tick":
		advance(t, d, clock)
		return Tick{}
	case "trigger":
		return Trigger{ID: argUint(t, d, "id"), Overtaking: d.HasArg("overtaking")}
	case "stop":
		return Stop{}
	case "source":
		return SourceReported{ID: id, Source: argInt(t, d, "src", 0), Position: argUint(t, d, "pos")}
	case "ack":
		return TaskAcked{ID: id, Task: argInt(t, d, "task", 0), Report: TaskReport{Positions: argUints(t, d, "positions"),
			Unaligned: d.HasArg("unaligned"), Err: argErr(t, d)}}
	case "persisted":
		return Persisted{ID: id, Err: argErr(t, d), Outage: d.HasArg("outage"), GivenUp: d.HasArg("givenup")}
	case "published":
		return Published{ID: id, Err: argErr(t, d), Outage: d.HasArg("outage")}
	case "state":
		return nil
	}
	t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
	return nil
}

func argErr(t *testing.T, d *datadriven.TestData) error {
	if !d.HasArg("err") {
		return nil
	}
	// Words are joined by underscores: err=no_space_left_on_device.
	return errors.New(strings.ReplaceAll(argString(t, d, "err", ""), "_", " "))
}

func describeCoordinator(c *Coordinator, clock *ManualClock) string {
	s := since(clock) + " " + c.State()
	if dl, ok := c.NextDeadline(); ok {
		s += fmt.Sprintf(" deadline=%s", dl.Sub(epoch))
	}
	return "state: " + s + "\n"
}
