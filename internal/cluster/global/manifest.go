package global

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/wasmstream/wasmstream/checkpoint"
)

// ManifestFormatVersion is the global manifest format this package writes
// and the only one it reads.
const ManifestFormatVersion = 1

// Manifest is a completed cluster checkpoint (design §5.3 step 4): the
// single-process manifest of the whole pipeline, and where each task's
// state is in the Object Store.
type Manifest struct {
	// FormatVersion is ManifestFormatVersion; EncodeManifest fills it.
	FormatVersion int `json:"format_version"`
	// Checkpoint is the cut in the single-process schema (checkpoint
	// FORMAT.md), valid by checkpoint's own rules: ID is N; every
	// operator's tasks partition [0, max_parallelism); each source's
	// LastSequence is the lowest any worker reported. Files references the
	// task checkpoints, one entry per task manifest object: Path is the
	// object, SHA256 the hash of its bytes, Size the task checkpoint's
	// bytes (TaskPart.Bytes). A local checkpoint written from it
	// (Materialize) lists its own files instead.
	Checkpoint checkpoint.Manifest `json:"checkpoint"`
	// Generation and Assignment are the G of the coordinator that
	// completed it and the assignment epoch A the workers snapshot under.
	Generation uint64 `json:"generation"`
	Assignment uint64 `json:"assignment"`
	// Tasks are the task parts of every operator, sorted by operator, then
	// key-group range; their entries are Checkpoint's task entries.
	Tasks []TaskPart `json:"tasks"`
	// Workers are the ids of the workers that acked, sorted.
	Workers []string `json:"workers"`
	// Checksum is the hex SHA-256 of the encoding with Checksum empty;
	// EncodeManifest fills it.
	Checksum string `json:"checksum"`
}

func (m *Manifest) checksumField() *string { return &m.Checksum }

// ID returns the checkpoint's N.
func (m Manifest) ID() uint64 { return m.Checkpoint.ID }

// EncodeManifest validates m and returns its JSON with FormatVersion and
// Checksum filled in. DecodeManifest accepts exactly these bytes.
func EncodeManifest(m Manifest) ([]byte, error) {
	m.FormatVersion = ManifestFormatVersion
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("%w: manifest of cluster checkpoint %d: %w", ErrInvalid, m.ID(), err)
	}
	_, data, err := seal(m)
	return data, err
}

// DecodeManifest parses a global manifest, read back from a bucket other
// clients can write: another format version is ErrIncompatible, anything
// else wrong (a changed byte included) ErrCorrupt. ReadManifest adds the
// object's name to the error.
func DecodeManifest(data []byte) (Manifest, error) {
	const what = "global manifest"
	if err := checkVersion(data, what, ManifestFormatVersion); err != nil {
		return Manifest{}, err
	}
	m, err := decodeStrict[Manifest](data)
	if err == nil {
		err = m.validate()
	}
	if err == nil {
		err = checkSeal(m, data)
	}
	if err != nil {
		return Manifest{}, fmt.Errorf("%w: %s%s: %w; restore from another checkpoint", ErrCorrupt, what, ofCheckpoint(m.ID()), err)
	}
	return m, nil
}

// ofCheckpoint names checkpoint n in a message, when it was read.
func ofCheckpoint(n uint64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" of cluster checkpoint %d", n)
}

// validate checks every rule of a manifest, so that Materialize and Verify
// can trust one built in memory as much as a decoded one.
func (m Manifest) validate() error {
	if m.Generation == 0 || m.Assignment == 0 {
		return errors.New("generation and assignment must each be at least 1")
	}
	if err := checkNormal(m.Checkpoint); err != nil {
		return err
	}
	if err := validateWorkers(m.Workers); err != nil {
		return err
	}
	infos, err := validateInfos(infosOf(m.Checkpoint.Operators))
	if err != nil {
		return err
	}
	if err := validateParts(m.Tasks, infos); err != nil {
		return err
	}
	if !slices.IsSortedFunc(m.Tasks, comparePart) {
		return errors.New("tasks not sorted by operator and key-group range")
	}
	for _, op := range m.Checkpoint.Operators {
		if err := matchEntries(op, partsOf(m.Tasks, op.Name)); err != nil {
			return err
		}
	}
	files, err := references(m.Tasks)
	if err != nil {
		return err
	}
	if !slices.Equal(files, m.Checkpoint.Files) {
		return errors.New("checkpoint files are not the references of the task parts")
	}
	return nil
}

// checkNormal requires cp to pass checkpoint's validation and to carry the
// checksum checkpoint.Encode gives it: one manifest, one encoding.
func checkNormal(cp checkpoint.Manifest) error {
	normal, err := normalize(cp)
	if err != nil {
		return err
	}
	if normal.Checksum != cp.Checksum {
		return fmt.Errorf("checkpoint checksum %q is not its content's %s", cp.Checksum, normal.Checksum)
	}
	return nil
}

// normalize validates cp by checkpoint's own rules and returns it as
// checkpoint.Decode reads it back, with its checksum.
func normalize(cp checkpoint.Manifest) (checkpoint.Manifest, error) {
	data, err := checkpoint.Encode(cp)
	if err != nil {
		return cp, err
	}
	return checkpoint.Decode(data)
}

func validateWorkers(ws []string) error {
	if len(ws) == 0 {
		return errors.New("no workers")
	}
	for i, w := range ws {
		if w == "" || (i > 0 && ws[i-1] >= w) {
			return fmt.Errorf("workers %q must be non-empty, sorted and unique", ws)
		}
	}
	return nil
}

// matchEntries requires the parts of op, in key-group order, to number its
// tasks and to be its task entries.
func matchEntries(op checkpoint.OperatorEntry, parts []labeled) error {
	sorted, err := partition(op.Name, op.MaxParallelism, parts)
	if err != nil {
		return err
	}
	if len(sorted) != len(op.Tasks) {
		return fmt.Errorf("operator %q: %d task parts for %d task entries", op.Name, len(sorted), len(op.Tasks))
	}
	for i, p := range sorted {
		if !entriesEqual(p.Entry, op.Tasks[i]) {
			return fmt.Errorf("operator %q: %s: the part's entry differs from the checkpoint's", op.Name, p)
		}
	}
	return nil
}

func partsOf(parts []TaskPart, op string) []labeled {
	var out []labeled
	for _, p := range parts {
		if p.Operator == op {
			out = append(out, labeled{TaskPart: p})
		}
	}
	return out
}

func infosOf(ops []checkpoint.OperatorEntry) []OperatorInfo {
	out := make([]OperatorInfo, len(ops))
	for i, op := range ops {
		out[i] = InfoOf(op)
	}
	return out
}

// comparePart orders parts by operator, then key-group range.
func comparePart(a, b TaskPart) int {
	return cmp.Or(strings.Compare(a.Operator, b.Operator), cmp.Compare(a.Entry.Start, b.Entry.Start), cmp.Compare(a.Entry.End, b.Entry.End))
}

// entriesEqual compares entries, a nil Inputs equal to an empty one.
func entriesEqual(a, b checkpoint.TaskEntry) bool {
	return a.KeyGroupRange == b.KeyGroupRange && maps.Equal(a.Inputs, b.Inputs) && a.PauseNanos == b.PauseNanos &&
		a.AlignmentNanos == b.AlignmentNanos && a.Unaligned == b.Unaligned
}
