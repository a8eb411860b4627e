package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Limits of the state format (internal/state/FORMAT.md) that a manifest must respect.
const (
	maxOperatorNameLen = 255
	maxKeyGroups       = 32768
)

// manifestFile is the name of the manifest inside a checkpoint directory.
const manifestFile = "MANIFEST.json"

// validate reports the first field that a correct writer could not have
// produced. Config may be empty and LastSequence may be 0 (nothing read).
func (m *Manifest) validate() error {
	if m.ID == 0 {
		return errors.New("id missing (0)")
	}
	for _, op := range m.Operators {
		if m.FormatVersion < 3 && len(op.StateVersions) > 0 {
			return fmt.Errorf("operator %q: state_versions in a format %d manifest (they came with format 3)", op.Name, m.FormatVersion)
		}
		for name, v := range op.StateVersions {
			if v < 1 || name == "" {
				return fmt.Errorf("operator %q: state %q has version %d; versions are 1 or more", op.Name, name, v)
			}
		}
	}
	if m.Created.IsZero() || m.Completed.IsZero() {
		return errors.New("created or completed time missing")
	}
	if m.Completed.Before(m.Created) {
		return fmt.Errorf("completed %s before created %s", m.Completed, m.Created)
	}
	if m.Metrics.DurationNanos < 0 || m.Metrics.AlignmentNanos < 0 || m.Metrics.MaxPauseNanos < 0 ||
		m.Metrics.BytesTotal < 0 || m.Metrics.BytesNew < 0 {
		return errors.New("negative metric")
	}
	if err := validateSources(m.Sources); err != nil {
		return err
	}
	if err := validateOperators(m.Operators); err != nil {
		return err
	}
	return validateFiles(m.Files)
}

func validateSources(sources []SourcePosition) error {
	seen := map[string]bool{}
	for i, s := range sources {
		if s.Name == "" || s.Stream == "" || s.StreamCreated.IsZero() {
			return fmt.Errorf("source %d (%q): name, stream or stream_created missing", i, s.Name)
		}
		if seen[s.Name] {
			return fmt.Errorf("source %q listed twice", s.Name)
		}
		seen[s.Name] = true
	}
	return nil
}

func validateOperators(ops []OperatorEntry) error {
	seen := map[string]bool{}
	for _, op := range ops {
		if err := validateOperator(op); err != nil {
			return fmt.Errorf("operator %q: %w", op.Name, err)
		}
		if seen[op.Name] {
			return fmt.Errorf("operator %q listed twice", op.Name)
		}
		seen[op.Name] = true
	}
	return nil
}

func validateOperator(op OperatorEntry) error {
	if op.Name == "" || len(op.Name) > maxOperatorNameLen {
		return fmt.Errorf("name must be 1..%d bytes", maxOperatorNameLen)
	}
	if !isSHA256Hex(op.ModuleSHA256) {
		return errors.New("module_sha256 is not 64 lowercase hex digits")
	}
	if op.ABIVersion == 0 || op.StateFormatVersion == 0 {
		return errors.New("abi_version or state_format_version missing")
	}
	if op.MaxParallelism < 1 || op.MaxParallelism > maxKeyGroups {
		return fmt.Errorf("max_parallelism %d outside 1..%d", op.MaxParallelism, maxKeyGroups)
	}
	if err := validateTasks(op.Tasks, op.MaxParallelism); err != nil {
		return err
	}
	for i, t := range op.Tasks {
		if t.PauseNanos < 0 || t.AlignmentNanos < 0 {
			return fmt.Errorf("task %d: negative metric", i)
		}
	}
	return nil
}

// validateTasks checks that the task ranges partition [0, maxPar) in order,
// as internal/state/FORMAT.md assigns them; a gap would lose key groups on restore.
func validateTasks(tasks []TaskEntry, maxPar int) error {
	if len(tasks) == 0 {
		return errors.New("no task key-group ranges")
	}
	next := 0
	for i, r := range tasks {
		if r.Start != next || r.End <= r.Start {
			return fmt.Errorf("task %d range [%d,%d) does not continue at %d", i, r.Start, r.End, next)
		}
		next = r.End
	}
	if next != maxPar {
		return fmt.Errorf("task ranges end at %d, not max_parallelism %d", next, maxPar)
	}
	return nil
}

func validateFiles(files []FileEntry) error {
	if len(files) == 0 {
		return errors.New("no files")
	}
	for i, f := range files {
		if err := validatePath(f.Path); err != nil {
			return fmt.Errorf("file %q: %w", f.Path, err)
		}
		if i > 0 && files[i-1].Path >= f.Path {
			return fmt.Errorf("file %q: files not sorted or listed twice", f.Path)
		}
		if f.Size < 0 || !isSHA256Hex(f.SHA256) {
			return fmt.Errorf("file %q: negative size or sha256 not 64 lowercase hex digits", f.Path)
		}
	}
	return nil
}

// validatePath accepts only clean, relative, slash-separated paths inside the
// checkpoint directory, so a manifest can never make Verify or a restore
// touch a file outside it.
func validatePath(p string) error {
	if !fs.ValidPath(p) || p == "." || strings.ContainsAny(p, "\\\x00") {
		return errors.New("path must be relative, clean and inside the checkpoint")
	}
	if p == manifestFile {
		return errors.New("the manifest cannot list itself")
	}
	return nil
}

func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
