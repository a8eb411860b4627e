package checkpoint

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAlignerScripts runs testdata/aligner/*.txt. Commands:
//
//	new inputs=N mode=aligned|unaligned [timeout=DURATION]
//	record INPUT...            one line per record: "INPUT: action"
//	barrier INPUT id=ID        the effects, one per line
//	tick DURATION              the effects of Tick
//	cancel id=ID               the effects of Cancel
//
// Every output ends with the aligner's State.
func TestAlignerScripts(t *testing.T) {
	var a *Aligner
	runScripts(t, "testdata/aligner", func(t *testing.T, c scriptCase) string {
		if c.cmd == "new" {
			var err error
			a, err = newFromScript(c)
			if err != nil {
				return "error: " + err.Error()
			}
			return a.State()
		}
		if a == nil {
			t.Fatalf("line %d: %s before new", c.line, c.cmd)
		}
		out, err := stepScript(a, c)
		if err != nil {
			out += "error: " + err.Error() + "\n"
		}
		return out + a.State()
	})
}

func newFromScript(c scriptCase) (*Aligner, error) {
	cfg := Config{}
	var err error
	if cfg.Inputs, err = strconv.Atoi(c.kv["inputs"]); err != nil {
		return nil, err
	}
	if cfg.Mode, err = ParseMode(c.kv["mode"]); err != nil {
		return nil, err
	}
	if v, ok := c.kv["timeout"]; ok {
		if cfg.AlignmentTimeout, err = time.ParseDuration(v); err != nil {
			return nil, err
		}
	}
	return NewAligner(cfg)
}

func stepScript(a *Aligner, c scriptCase) (string, error) {
	switch c.cmd {
	case "record":
		return recordsFromScript(a, c.args)
	case "barrier":
		input, id, err := scriptInts(c.args, c.kv["id"])
		if err != nil {
			return "", err
		}
		effects, err := a.Barrier(input, id)
		return formatEffects(effects), err
	case "tick":
		d, err := time.ParseDuration(strings.Join(c.args, ""))
		if err != nil {
			return "", err
		}
		return formatEffects(a.Tick(d)), nil
	case "cancel":
		id, err := strconv.ParseUint(c.kv["id"], 10, 64)
		if err != nil {
			return "", err
		}
		return formatEffects(a.Cancel(id)), nil
	}
	return "", fmt.Errorf("unknown command %q", c.cmd)
}

func recordsFromScript(a *Aligner, args []string) (string, error) {
	var b strings.Builder
	for _, arg := range args {
		input, err := strconv.Atoi(arg)
		if err != nil {
			return b.String(), err
		}
		action, err := a.Record(input)
		if err != nil {
			return b.String(), err
		}
		if action == ProcessAndLogInFlight {
			id, _ := a.InProgress()
			fmt.Fprintf(&b, "%d: %s %d\n", input, action, id)
			continue
		}
		fmt.Fprintf(&b, "%d: %s\n", input, action)
	}
	return b.String(), nil
}

func scriptInts(args []string, idArg string) (int, uint64, error) {
	if len(args) != 1 {
		return 0, 0, fmt.Errorf("want one input, got %v", args)
	}
	input, err := strconv.Atoi(args[0])
	if err != nil {
		return 0, 0, err
	}
	id, err := strconv.ParseUint(idArg, 10, 64)
	return input, id, err
}

func formatEffects(effects []Effect) string {
	var b strings.Builder
	for _, e := range effects {
		b.WriteString(e.String() + "\n")
	}
	return b.String()
}

func TestAlignerErrors(t *testing.T) {
	a, err := NewAligner(Config{Inputs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Record(2); !errors.Is(err, ErrInputOutOfRange) {
		t.Errorf("Record(2) = %v, want ErrInputOutOfRange", err)
	}
	if _, err := a.Barrier(-1, 1); !errors.Is(err, ErrInputOutOfRange) {
		t.Errorf("Barrier(-1, 1) = %v, want ErrInputOutOfRange", err)
	}
	if _, err := a.Barrier(0, 0); !errors.Is(err, ErrBarrierOrder) {
		t.Errorf("Barrier(0, 0) = %v, want ErrBarrierOrder", err)
	}
	if _, err := a.Barrier(0, 1); err != nil {
		t.Fatal(err)
	}
	before := a.State()
	if _, err := a.Barrier(0, 1); !errors.Is(err, ErrBarrierOrder) {
		t.Errorf("duplicate Barrier(0, 1) = %v, want ErrBarrierOrder", err)
	}
	if after := a.State(); after != before {
		t.Errorf("state changed by a rejected barrier: %q -> %q", before, after)
	}
}
