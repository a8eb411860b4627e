package execrun

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/internal/state"
)

// metaOperator records, in a state directory exec wrote, whose state it
// holds: a second run with --state-in under another operator name would
// otherwise see no state at all, a silent fresh start.
const metaOperator = "exec/operator"

// stateDir is where a run's state lives.
type stateDir struct {
	path string
	// created: the run made path, and removes it when the run fails.
	created bool
}

// prepareStateDir makes the run's state directory: StateOut (or one under
// work), holding a copy of StateIn when given. StateIn is never modified
// unless it is StateOut too, then the run continues in place.
func prepareStateDir(o Options, work string) (stateDir, error) {
	out := o.StateOut
	if out == "" {
		out = filepath.Join(work, "state")
	}
	if o.StateIn != "" && sameDir(o.StateIn, out) {
		return stateDir{path: out}, nil
	}
	created, err := claimEmptyDir(out)
	if err != nil {
		return stateDir{}, err
	}
	d := stateDir{path: out, created: created}
	if o.StateIn == "" {
		return d, nil
	}
	if err := copyState(o.StateIn, out); err != nil {
		d.discard()
		return stateDir{}, err
	}
	return d, nil
}

// discard removes a directory the run created.
func (d stateDir) discard() {
	if d.created {
		_ = os.RemoveAll(d.path)
	}
}

// claimEmptyDir refuses a directory with files in it (a run must not mix
// its state into something else) and creates a missing one, private.
func claimEmptyDir(dir string) (created bool, err error) {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true, os.MkdirAll(dir, 0o700)
	case err != nil:
		return false, fmt.Errorf("state dir %s: %w", dir, err)
	case len(entries) > 0:
		return false, fmt.Errorf("%w: --state-out %s is not empty; give a new or empty directory, or the --state-in directory to continue in place", ErrUsage, dir)
	}
	return false, nil
}

// copyState copies the store in from into the empty directory to. The
// store is opened read-only first: that checks it is a state store and
// that no process has it open for writing while its files are copied.
func copyState(from, to string) error {
	src, err := state.Open(from, state.Options{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("--state-in %s: %w (give a directory an earlier exec --state-out wrote)", from, err)
	}
	defer src.Close()
	entries, err := os.ReadDir(from)
	if err != nil {
		return fmt.Errorf("--state-in %s: %w", from, err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || e.Name() == "LOCK" {
			continue
		}
		if err := copyFile(filepath.Join(from, e.Name()), filepath.Join(to, e.Name())); err != nil {
			return fmt.Errorf("copy --state-in %s to %s: %w", from, to, err)
		}
	}
	return nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// sameDir reports whether a and b name one directory.
func sameDir(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}

// claimState checks that store holds operator's state, or nobody's yet,
// and records operator as its owner.
func claimState(store *state.Store, dir, operator string) error {
	owner, ok, err := store.GetMeta(metaOperator)
	if err != nil {
		return fmt.Errorf("state dir %s: %w", dir, err)
	}
	if ok {
		if string(owner) != operator {
			return fmt.Errorf("%w: state dir %s holds the state of operator %q, not %q; give --operator %s, or start without --state-in",
				ErrUsage, dir, owner, operator, owner)
		}
		return nil
	}
	b := store.NewBatch()
	defer b.Close()
	if err := state.PutMeta(b, metaOperator, []byte(operator)); err != nil {
		return err
	}
	return b.Commit(pebble.Sync)
}
