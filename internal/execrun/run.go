package execrun

import (
	"context"
	"fmt"
	"os"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
)

// Run runs the module on the input's records and returns what it produced
// and the final state. Nothing is printed. An error means the run could
// not complete (bad options, module or input line, a guest failing outside
// any record, a host failure); a StateOut it created is then removed, and
// a StateIn is never modified.
func Run(ctx context.Context, o Options) (_ *Result, err error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	cfg, oc, err := loadConfig(o)
	if err != nil {
		return nil, err
	}
	in, inputName, closeInput, err := openInput(o)
	if err != nil {
		return nil, err
	}
	defer closeInput()
	work, err := os.MkdirTemp("", "wasmstream-exec-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	dir, err := prepareStateDir(o, work)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			dir.discard()
		}
	}()
	res := &Result{Operator: oc.Name, Input: inputName}
	if o.StateOut != "" {
		res.StateDir = dir.path
	}
	ex, store, err := openRun(ctx, o, cfg, oc.Name, dir.path, work)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	defer ex.Close(ctx)
	if err := feed(ctx, ex, newRecordReader(in, inputName, ex.MaxPayload(), o.Clock), res); err != nil {
		return nil, err
	}
	return res, finish(ex, store, res)
}

// openRun opens the state store in dir and the operator on it.
func openRun(ctx context.Context, o Options, cfg *config.Pipeline, name, dir, work string) (*engine.Exec, *state.Store, error) {
	store, err := state.Open(dir, state.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("state dir %s: %w", dir, err)
	}
	if err := claimState(store, stateLabel(o, dir), name); err != nil {
		store.Close()
		return nil, nil, err
	}
	ex, err := engine.OpenExec(ctx, cfg, name, store, engine.ExecOptions{Logger: o.Logger, Engine: o.Engine, Clock: o.Clock, Subject: o.Subject, WorkDir: work})
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	return ex, store, nil
}

// feed hands the records to the operator a chunk at a time.
func feed(ctx context.Context, ex *engine.Exec, rr *recordReader, res *Result) error {
	var lines []int // lines[seq-1] is the input line of record seq
	lineOf := func(seq uint64) int { return lines[seq-1] }
	for {
		recs, recLines, err := rr.next(chunkRecords)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			return nil
		}
		lines = append(lines, recLines...)
		if err := ex.Process(ctx, recs); err != nil {
			first, last := recLines[0], recLines[len(recLines)-1]
			return fmt.Errorf("%s: lines %d-%d: %w", rr.name, first, last, err)
		}
		res.collect(ex.Messages(), lineOf)
	}
}

// finish commits the state and reads it back.
func finish(ex *engine.Exec, store *state.Store, res *Result) error {
	if err := ex.Finish(); err != nil {
		return err
	}
	if err := store.DB().Flush(); err != nil {
		return fmt.Errorf("state dir %s: %w", store.Dir(), err)
	}
	entries, err := ex.State()
	if err != nil {
		return err
	}
	res.sortByInput()
	res.State = stateValues(entries)
	res.Stats = ex.Stats()
	return nil
}

// stateLabel names the state directory for the user: the one they gave.
func stateLabel(o Options, dir string) string {
	if o.StateIn != "" {
		return o.StateIn
	}
	return dir
}
