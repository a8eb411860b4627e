package global

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/wasmstream/wasmstream/checkpoint"
)

// Assemble builds the global manifest of checkpoint n from the acks of the
// coordinator of generation gen under assignment epoch (design §5.3 step
// 4). It is a pure function of its arguments but for Completed: the
// coordinator calls it when the last ack arrived and stores the result.
//
// template gives Created, Config, Metrics.Recovery, Metrics.DurationNanos
// (Completed − Created when 0) and Completed (now when zero); its other
// fields are not used. Every ack must be of n, gen and epoch (else
// ErrStale naming the worker), the acks must agree on every operator and
// on each source's stream (ErrConflict), and the task parts of each
// operator must give each key group once (ErrNotCovered, naming the
// operator and the ranges). A source resumes at the lowest position any
// worker reported: its LastSequence is the minimum over the acks.
func Assemble(n, gen, epoch uint64, template checkpoint.Manifest, acks []Ack) (Manifest, error) {
	if err := checkRound(n, gen, epoch, template, acks); err != nil {
		return Manifest{}, fmt.Errorf("cluster checkpoint %d: %w", n, err)
	}
	m, err := assemble(n, gen, epoch, template, acks)
	if err != nil {
		return Manifest{}, fmt.Errorf("cluster checkpoint %d: %w", n, err)
	}
	return m, nil
}

func assemble(n, gen, epoch uint64, template checkpoint.Manifest, acks []Ack) (Manifest, error) {
	infos, err := mergeInfos(acks)
	if err != nil {
		return Manifest{}, err
	}
	sources, err := mergeSources(acks)
	if err != nil {
		return Manifest{}, err
	}
	parts, err := mergeParts(infos, sources, acks)
	if err != nil {
		return Manifest{}, err
	}
	cp, err := buildCheckpoint(n, template, sources, infos, parts)
	if err != nil {
		return Manifest{}, err
	}
	m := Manifest{FormatVersion: ManifestFormatVersion, Checkpoint: cp, Generation: gen, Assignment: epoch,
		Tasks: withEntries(parts, cp.Operators), Workers: workersOf(acks)}
	if err := m.validate(); err != nil {
		return Manifest{}, fmt.Errorf("%w: the assembled manifest breaks a rule: %w", ErrInvalid, err)
	}
	return m, nil
}

// checkRound requires valid acks of the round n, gen, epoch, one per worker.
func checkRound(n, gen, epoch uint64, template checkpoint.Manifest, acks []Ack) error {
	switch {
	case n == 0 || gen == 0 || epoch == 0:
		return fmt.Errorf("%w: checkpoint, generation and assignment must each be at least 1 (got %d, %d, %d)", ErrInvalid, n, gen, epoch)
	case template.ID != 0 && template.ID != n:
		return fmt.Errorf("%w: the template is of checkpoint %d", ErrInvalid, template.ID)
	case len(acks) == 0:
		return fmt.Errorf("%w: no acks", ErrInvalid)
	}
	seen := map[string]bool{}
	for _, a := range acks {
		if err := a.validate(); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInvalid, a.name(), err)
		}
		if a.Checkpoint != n || a.Generation != gen || a.Assignment != epoch {
			return fmt.Errorf("%w: %s; this round is generation %d, assignment %d: drop it", ErrStale, a.name(), gen, epoch)
		}
		if seen[a.Worker] {
			return fmt.Errorf("%w: worker %q acked twice", ErrConflict, a.Worker)
		}
		seen[a.Worker] = true
	}
	return nil
}

// reported is a fact and the worker that reported it first.
type reported[T any] struct {
	v    T
	from string
}

// mergeInfos returns each operator's info, which every worker running
// tasks of it must report alike: one module, one layout of key groups.
func mergeInfos(acks []Ack) (map[string]reported[OperatorInfo], error) {
	infos := map[string]reported[OperatorInfo]{}
	for _, a := range acks {
		for _, i := range a.Operators {
			seen, ok := infos[i.Name]
			if !ok {
				infos[i.Name] = reported[OperatorInfo]{i, a.Worker}
				continue
			}
			if !seen.v.equal(i) {
				return nil, fmt.Errorf("%w: operator %q: worker %q reports %+v, worker %q %+v", ErrConflict, i.Name, seen.from, seen.v, a.Worker, i)
			}
		}
	}
	return infos, nil
}

// mergeSources returns the sources by name with the lowest position any
// worker reported: the source resumes there for every worker, and each
// task's inputs with the engine's skip table drop what its state holds.
func mergeSources(acks []Ack) ([]checkpoint.SourcePosition, error) {
	byName := map[string]reported[checkpoint.SourcePosition]{}
	for _, a := range acks {
		for _, s := range a.Sources {
			seen, ok := byName[s.Name]
			switch {
			case !ok:
				byName[s.Name] = reported[checkpoint.SourcePosition]{s, a.Worker}
			case seen.v.Stream != s.Stream || !seen.v.StreamCreated.Equal(s.StreamCreated):
				return nil, fmt.Errorf("%w: source %q: worker %q reads stream %q created %s, worker %q stream %q created %s",
					ErrConflict, s.Name, seen.from, seen.v.Stream, seen.v.StreamCreated, a.Worker, s.Stream, s.StreamCreated)
			case s.LastSequence < seen.v.LastSequence:
				seen.v.LastSequence = s.LastSequence
				byName[s.Name] = seen
			}
		}
	}
	out := make([]checkpoint.SourcePosition, 0, len(byName))
	for _, s := range byName {
		out = append(out, s.v)
	}
	slices.SortFunc(out, func(a, b checkpoint.SourcePosition) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// mergeParts returns the task parts of every operator, sorted by
// operator and range, after checking that each operator's give each key
// group once and that every input a task names is a reported source.
func mergeParts(infos map[string]reported[OperatorInfo], sources []checkpoint.SourcePosition, acks []Ack) ([]TaskPart, error) {
	known := map[string]bool{}
	for _, s := range sources {
		known[s.Name] = true
	}
	byOp := map[string][]labeled{}
	for _, a := range acks {
		for _, p := range a.Tasks {
			l := labeled{TaskPart: p, from: a.Worker}
			if err := checkInputs(l, known); err != nil {
				return nil, err
			}
			byOp[p.Operator] = append(byOp[p.Operator], l)
		}
	}
	var parts []TaskPart
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(infos)) {
		sorted, err := partition(name, infos[name].v.MaxParallelism, byOp[name])
		errs = append(errs, err)
		for _, l := range sorted {
			parts = append(parts, l.TaskPart)
		}
	}
	return parts, errors.Join(errs...)
}

func checkInputs(p labeled, sources map[string]bool) error {
	for name := range p.Entry.Inputs {
		if !sources[name] {
			return fmt.Errorf("%w: operator %q %s reads input %q, which no worker reports as a source",
				ErrInvalid, p.Operator, p, name)
		}
	}
	return nil
}

// buildCheckpoint returns the single-process manifest of the cut,
// validated by checkpoint's own rules and as checkpoint.Decode reads it.
func buildCheckpoint(n uint64, template checkpoint.Manifest, sources []checkpoint.SourcePosition,
	infos map[string]reported[OperatorInfo], parts []TaskPart) (checkpoint.Manifest, error) {
	files, err := references(parts)
	if err != nil {
		return checkpoint.Manifest{}, err
	}
	cp := checkpoint.Manifest{FormatVersion: checkpoint.ManifestFormatVersion, ID: n,
		Created: template.Created, Completed: template.Completed, Sources: sources, Files: files, Config: template.Config}
	if cp.Completed.IsZero() {
		cp.Completed = time.Now().UTC()
	}
	for _, name := range slices.Sorted(maps.Keys(infos)) {
		var tasks []checkpoint.TaskEntry
		for _, p := range parts {
			if p.Operator == name {
				tasks = append(tasks, p.Entry)
			}
		}
		cp.Operators = append(cp.Operators, infos[name].v.entry(tasks))
	}
	cp.Metrics = metrics(template, cp, parts)
	normal, err := normalize(cp)
	if err != nil {
		return checkpoint.Manifest{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return normal, nil
}
