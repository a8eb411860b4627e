package global

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/state"
)

// labeled is a task part and the worker that reported it ("" when
// unknown, in a decoded manifest), for messages.
type labeled struct {
	TaskPart
	from string
}

func (l labeled) String() string {
	if l.from == "" {
		return fmt.Sprintf("task %d range %s", l.Index, l.Range())
	}
	return fmt.Sprintf("task %d range %s (worker %q)", l.Index, l.Range(), l.from)
}

// partition sorts the parts of operator op by key-group range and checks
// that they give every key group of [0, maxParallelism) exactly once
// (design §5.3 step 4) and number the tasks in key-group order. Every gap
// and overlap is reported, not only the first: a coordinator's log then
// shows the whole picture of a bad round.
func partition(op string, maxParallelism int, parts []labeled) ([]labeled, error) {
	sorted := slices.Clone(parts)
	slices.SortStableFunc(sorted, func(a, b labeled) int {
		return cmp.Or(cmp.Compare(a.Entry.Start, b.Entry.Start), cmp.Compare(a.Entry.End, b.Entry.End))
	})
	var errs []error
	next, last := 0, labeled{}
	for _, p := range sorted {
		switch {
		case p.Entry.Start > next:
			errs = append(errs, missing(op, next, p.Entry.Start))
		case p.Entry.Start < next:
			errs = append(errs, fmt.Errorf("%w: operator %q: %s overlaps %s", ErrNotCovered, op, p, last))
		}
		if p.Entry.End > next {
			next, last = p.Entry.End, p
		}
	}
	if next < maxParallelism {
		errs = append(errs, missing(op, next, maxParallelism))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return sorted, numbering(op, sorted)
}

func missing(op string, start, end int) error {
	return fmt.Errorf("%w: operator %q: no task has key groups %s", ErrNotCovered, op, state.KeyGroupRange{Start: start, End: end})
}

// numbering requires tasks 0, 1, ... in key-group order, as the
// single-process manifest lists them; the sub-ranges of a split entry
// share their task's index and task checkpoint.
func numbering(op string, sorted []labeled) error {
	for i, p := range sorted {
		want := 0
		if i > 0 {
			prev := sorted[i-1]
			if samePart(prev.TaskPart, p.TaskPart) {
				continue
			}
			want = prev.Index + 1
		}
		if p.Index != want {
			return fmt.Errorf("%w: operator %q: %s should be task %d: tasks are numbered in key-group order, and the sub-ranges of one task share its task checkpoint",
				ErrNotCovered, op, p, want)
		}
	}
	return nil
}

// references returns the task checkpoints of parts as the file entries of
// the single-process manifest, sorted by object: Path is the task
// manifest's object, SHA256 its bytes' hash, Size the task checkpoint's
// bytes (so Metrics.BytesTotal is their sum, as the format wants). One
// object is one task checkpoint; two tasks naming one object, or one
// object with two hashes, is refused.
func references(parts []TaskPart) ([]checkpoint.FileEntry, error) {
	byObject := map[string]TaskPart{}
	var files []checkpoint.FileEntry
	for _, p := range parts {
		if q, ok := byObject[p.Object]; ok {
			if !samePart(p, q) {
				return nil, fmt.Errorf("%w: object %s is named by operator %q task %d (sha256 %s) and operator %q task %d (sha256 %s)",
					ErrConflict, p.Object, q.Operator, q.Index, q.SHA256, p.Operator, p.Index, p.SHA256)
			}
			continue
		}
		byObject[p.Object] = p
		files = append(files, checkpoint.FileEntry{Path: p.Object, Size: p.Bytes, SHA256: p.SHA256})
	}
	slices.SortFunc(files, func(a, b checkpoint.FileEntry) int { return strings.Compare(a.Path, b.Path) })
	return files, nil
}
