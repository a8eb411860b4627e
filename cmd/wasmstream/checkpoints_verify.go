package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/checkpoint"
)

// verifyFlags are verify's flags: --all checks every checkpoint, which a
// data dir's verify does without an id anyway.
type verifyFlags struct {
	checkpointsCmdFlags
	all bool
}

func newCheckpointsVerifyCommand() *cobra.Command {
	f := &verifyFlags{}
	cmd := &cobra.Command{
		Use:   "verify (PIPELINE.hcl | --data-dir DIR) [ID | --all]",
		Short: "Check one or every checkpoint's files against its manifest",
		Long: `Verify reads every byte of a checkpoint (or of every checkpoint, newest first, when no id
is given) and checks it against the manifest: each listed file is present with its size
and SHA-256, no unlisted file exists, and the manifest itself is intact and valid. It
prints one line per checkpoint, or the error naming the checkpoint and each bad file,
and exits non-zero if any failed. A restore refuses a checkpoint that fails here; rolling
back to an older one that passes is an explicit choice.

With --json: an array of {"id", "ok", "files", "bytes"} or {"id", "ok": false, "error"};
the exit status is non-zero on failure too.

For a pipeline file with a cluster block, verify checks a cluster checkpoint in the
Object Store (see wasmstream checkpoints --help): the latest when no id is given,
every completed one with --all (each reads all its state, shared objects again). Every
object is read whole and checked: the global manifest against the SHA-256 of its
completion record, each task manifest against its reference, each state object's size
and SHA-256 against its task manifest. A damaged or missing object fails it, naming
the object and the checkpoint, and the exit status is non-zero. With --json: an array
of {"id", "ok", "task_checkpoints", "bytes"} or {"id", "ok": false, "error"}.`,
		Example: `  wasmstream checkpoints verify examples/payment-risk/pipeline.hcl
  wasmstream checkpoints verify --data-dir /var/lib/payment-risk 42 --json
  wasmstream checkpoints verify cluster-pipeline.hcl --all`,
		Args: f.args(0, 1, "at most one checkpoint id"),
		RunE: func(cmd *cobra.Command, args []string) error { return verify(cmd, f, args) },
	}
	f.addFlags(cmd)
	cmd.Flags().BoolVar(&f.all, "all", false, "verify every checkpoint (a data dir's default; a cluster pipeline's default is its latest)")
	return cmd
}

// verifyResult is the outcome for one checkpoint; Files and Bytes are what
// was checked when it passed.
type verifyResult struct {
	ID    uint64 `json:"id"`
	OK    bool   `json:"ok"`
	Files int    `json:"files,omitempty"`
	Bytes int64  `json:"bytes,omitempty"`
	Error string `json:"error,omitempty"`
}

func verify(cmd *cobra.Command, f *verifyFlags, args []string) error {
	t, rest, err := f.target(cmd, args)
	if err != nil {
		return err
	}
	if f.all && len(rest) > 0 {
		return fmt.Errorf("%s: give a checkpoint id or --all, not both; usage: %s", cmd.CommandPath(), cmd.UseLine())
	}
	if t.cluster() {
		return verifyCluster(cmd, f, t.cfg, rest)
	}
	root := t.root
	ids, err := verifyTargets(root, rest)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	results := make([]verifyResult, 0, len(ids))
	for _, id := range ids {
		r := verifyOne(root, id)
		results = append(results, r)
		if !f.json {
			writeVerifyResult(out, r)
		}
	}
	if f.json {
		if err := writeJSON(out, results); err != nil {
			return err
		}
	} else if len(ids) == 0 {
		fmt.Fprintf(out, "no checkpoints in %s%s\n", root, rootHint(root))
	}
	return verifyOutcome(root, results, len(rest) == 0)
}

// verifyTargets returns the requested id (which must exist) or every id.
func verifyTargets(root string, rest []string) ([]uint64, error) {
	if len(rest) == 0 {
		return checkpoint.List(root)
	}
	id, err := parseCheckpointID(rest[0])
	if err != nil {
		return nil, err
	}
	// A corrupt manifest is a verification failure, reported with the
	// others; only an id that is not there at all is a usage error.
	if _, err := checkpoint.Read(root, id); errors.Is(err, checkpoint.ErrCheckpointNotFound) {
		return nil, explainNotFound(root, id, err)
	}
	return []uint64{id}, nil
}

// verifyOne verifies checkpoint id; the manifest is read again after a pass
// only to count what was checked.
func verifyOne(root string, id uint64) verifyResult {
	if err := checkpoint.Verify(root, id); err != nil {
		return verifyResult{ID: id, Error: err.Error()}
	}
	m, err := checkpoint.Read(root, id)
	if err != nil {
		return verifyResult{ID: id, Error: err.Error()}
	}
	return verifyResult{ID: id, OK: true, Files: len(m.Files), Bytes: sumSizes(m.Files)}
}

// writeVerifyResult prints one result; each line of a joined error (one per
// bad file) on its own indented line.
func writeVerifyResult(out io.Writer, r verifyResult) {
	if r.OK {
		fmt.Fprintf(out, "checkpoint %d: ok (%d files, %d bytes verified)\n", r.ID, r.Files, r.Bytes)
		return
	}
	fmt.Fprintf(out, "checkpoint %d: FAILED\n", r.ID)
	writeIndented(out, r.Error)
}

// verifyOutcome turns failures into the command's error, naming them and
// the checkpoints that passed, the only ones a rollback could use.
func verifyOutcome(root string, results []verifyResult, all bool) error {
	passed, failed := passedAndFailed(results, func(r verifyResult) (uint64, bool) { return r.ID, r.OK })
	if len(failed) == 0 {
		return nil
	}
	advice := "no checkpoint passed: check the disk; starting from empty state is an explicit choice"
	switch {
	case !all:
		advice = "a restore refuses it; run verify without an id to find one that passes"
	case len(passed) > 0:
		advice = fmt.Sprintf("a restore refuses them; rolling back to one that passed (%s) is an explicit choice", joinIDs(passed))
	}
	return fmt.Errorf("%w: %d of %d checkpoint(s) in %s failed (%s); %s",
		errVerifyFailed, len(failed), len(results), root, joinIDs(failed), advice)
}

// passedAndFailed splits the ids of verify results by outcome.
func passedAndFailed[R any](results []R, outcome func(R) (id uint64, ok bool)) (passed, failed []uint64) {
	for _, r := range results {
		if id, ok := outcome(r); ok {
			passed = append(passed, id)
		} else {
			failed = append(failed, id)
		}
	}
	return passed, failed
}

// writeIndented prints each line of a joined error on its own indented line.
func writeIndented(out io.Writer, text string) {
	for _, line := range strings.Split(text, "\n") {
		fmt.Fprintf(out, "  %s\n", line)
	}
}
