package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/checkpoint"
)

type inspectFlags struct {
	checkpointsCmdFlags
	files  bool
	config bool
}

func newCheckpointsInspectCommand() *cobra.Command {
	f := &inspectFlags{}
	cmd := &cobra.Command{
		Use:   "inspect (PIPELINE.hcl | --data-dir DIR) [ID]",
		Short: "Show everything a checkpoint's manifest records",
		Long: `Inspect prints the manifest of one checkpoint: when it was triggered and completed, its
duration, alignment, longest pause, mode and sizes, the restore its run started from
(if any), each source's position (stream, stream creation time, last sequence; a restore
resumes at the next one), and each operator's version (module SHA-256, ABI, state format
and state version), its number of key groups and a table of its tasks (key-group range,
how far the snapshot consumed each input, pause, alignment, unaligned). --files lists
every file with its size and SHA-256; --config prints the pipeline configuration stored
with the checkpoint. It reads the manifest only: run verify to check the files.

With --json: the manifest as stored (MANIFEST.json, see checkpoint/FORMAT.md) plus two
computed fields, "dir" (the checkpoint directory) and "file_count"; --files and --config
do not change it.

For a pipeline file with a cluster block, inspect prints the global manifest of a
cluster checkpoint, the latest when no id is given (see wasmstream checkpoints --help):
its object, generation, assignment epoch, workers and sizes, each source's position,
and per operator its version and its tasks with their key-group ranges, positions, the
worker that uploaded each, its task manifest object and its bytes. --files lists the
task manifest objects with size and SHA-256. With --json: the global manifest as
stored plus "object", "sha256" (from the completion record), "latest", "bucket" and
"server".`,
		Example: `  wasmstream checkpoints inspect examples/payment-risk/pipeline.hcl 42
  wasmstream checkpoints inspect --data-dir /var/lib/payment-risk 42 --files --config
  wasmstream checkpoints inspect --data-dir /var/lib/payment-risk 42 --json`,
		Args: f.args(0, 1, "the checkpoint id"),
		RunE: func(cmd *cobra.Command, args []string) error { return inspect(cmd, f, args) },
	}
	f.addFlags(cmd)
	cmd.Flags().BoolVar(&f.files, "files", false, "list every file of the checkpoint")
	cmd.Flags().BoolVar(&f.config, "config", false, "print the stored pipeline configuration")
	return cmd
}

// inspectJSON is the --json form: the manifest's own fields at the top
// level, plus fields computed from it.
type inspectJSON struct {
	checkpoint.Manifest
	Dir       string `json:"dir"`
	FileCount int    `json:"file_count"`
}

func inspect(cmd *cobra.Command, f *inspectFlags, args []string) error {
	t, rest, err := f.target(cmd, args)
	if err != nil {
		return err
	}
	if t.cluster() {
		return inspectCluster(cmd, f, t.cfg, rest)
	}
	if len(rest) == 0 {
		return fmt.Errorf("%s: give the checkpoint id (only a cluster pipeline's default is its latest); usage: %s", cmd.CommandPath(), cmd.UseLine())
	}
	root := t.root
	id, err := parseCheckpointID(rest[0])
	if err != nil {
		return err
	}
	m, err := checkpoint.Read(root, id)
	if err != nil {
		return explainNotFound(root, id, err)
	}
	out := cmd.OutOrStdout()
	if f.json {
		return writeJSON(out, inspectJSON{Manifest: m, Dir: checkpoint.Dir(root, id), FileCount: len(m.Files)})
	}
	writeSummary(out, m, checkpoint.Dir(root, id))
	writeSources(out, m.Sources)
	for _, op := range m.Operators {
		writeOperator(out, op)
	}
	if f.files {
		writeFiles(out, m.Files)
	}
	if f.config {
		writeConfig(out, m.Config)
	}
	return nil
}

// writeSummary prints the checkpoint-wide facts.
func writeSummary(out io.Writer, m checkpoint.Manifest, dir string) {
	fmt.Fprintf(out, "checkpoint %d\n", m.ID)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	row := func(k, format string, v ...any) { fmt.Fprintf(tw, "  %s\t"+format+"\n", append([]any{k}, v...)...) }
	row("directory", "%s", dir)
	row("format version", "%d", m.FormatVersion)
	row("created", "%s", m.Created.UTC().Format(timeLayout))
	row("completed", "%s", m.Completed.UTC().Format(timeLayout))
	row("duration", "%s", humanDuration(m.Metrics.DurationNanos))
	row("alignment", "%s (longest of any task)", humanDuration(m.Metrics.AlignmentNanos))
	row("max pause", "%s (longest of any task)", humanDuration(m.Metrics.MaxPauseNanos))
	row("mode", "%s", dashIfEmpty(m.Metrics.Mode))
	row("bytes", "%s total, %s new (%d, %d)", humanBytes(m.Metrics.BytesTotal), humanBytes(m.Metrics.BytesNew),
		m.Metrics.BytesTotal, m.Metrics.BytesNew)
	row("recovery", "%s", formatRecovery(m.Metrics.Recovery))
	row("files", "%d, %s (--files lists them)", len(m.Files), humanBytes(sumSizes(m.Files)))
	row("config", "%d bytes (--config prints it)", len(m.Config))
	_ = tw.Flush()
}

// formatRecovery describes the restore the writing run started from.
func formatRecovery(r *checkpoint.RecoveryMetrics) string {
	if r == nil {
		return "none: the run that wrote it started from empty state"
	}
	return fmt.Sprintf("restored from checkpoint %d in %s, %d record(s) replayed",
		r.FromCheckpoint, humanDuration(r.DurationNanos), r.RecordsReplayed)
}

func sumSizes(files []checkpoint.FileEntry) int64 {
	var n int64
	for _, f := range files {
		n += f.Size
	}
	return n
}

// writeSources prints each source position and where a restore resumes.
func writeSources(out io.Writer, sources []checkpoint.SourcePosition) {
	fmt.Fprintf(out, "\nsources (%d)\n", len(sources))
	if len(sources) == 0 {
		return
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tSTREAM\tSTREAM CREATED\tLAST SEQUENCE\tRESUMES AT")
	for _, s := range sources {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%d\n", s.Name, s.Stream,
			s.StreamCreated.UTC().Format(timeLayout), s.LastSequence, s.LastSequence+1)
	}
	_ = tw.Flush()
}

// writeOperator prints one operator's version and its task table.
func writeOperator(out io.Writer, op checkpoint.OperatorEntry) {
	writeOperatorVersion(out, op)
	fmt.Fprintf(out, "  tasks (%d)\n", len(op.Tasks))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "    TASK\tKEY GROUPS\tINPUTS\tPAUSE\tALIGNMENT\tUNALIGNED")
	for i, t := range op.Tasks {
		fmt.Fprintf(tw, "    %d\t[%d, %d)\t%s\t%s\t%s\t%s\n", i, t.Start, t.End, formatInputs(t.Inputs),
			humanDuration(t.PauseNanos), humanDuration(t.AlignmentNanos), yesNo(t.Unaligned))
	}
	_ = tw.Flush()
}

// writeOperatorVersion prints what an operator entry says besides its tasks.
func writeOperatorVersion(out io.Writer, op checkpoint.OperatorEntry) {
	fmt.Fprintf(out, "\noperator %q\n", op.Name)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  module sha256\t%s\n", op.ModuleSHA256)
	fmt.Fprintf(tw, "  abi version\t%d\n", op.ABIVersion)
	fmt.Fprintf(tw, "  state format version\t%d\n", op.StateFormatVersion)
	fmt.Fprintf(tw, "  state version\t%s\n", dashIfEmpty(op.StateVersion))
	fmt.Fprintf(tw, "  declared state versions\t%s\n", dashIfEmpty(stateVersionList(op.StateVersions)))
	fmt.Fprintf(tw, "  max parallelism\t%d key groups\n", op.MaxParallelism)
	_ = tw.Flush()
}

// writeFiles prints every file with its size and hash, as Verify checks them.
func writeFiles(out io.Writer, files []checkpoint.FileEntry) {
	fmt.Fprintf(out, "\nfiles (%d, besides MANIFEST.json)\n", len(files))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  PATH\tSIZE\tSHA256")
	for _, f := range files {
		fmt.Fprintf(tw, "  %s\t%d\t%s\n", f.Path, f.Size, f.SHA256)
	}
	_ = tw.Flush()
}

// writeConfig prints the stored configuration text as it was written, so it
// can be copied into a file.
func writeConfig(out io.Writer, config string) {
	if config == "" {
		fmt.Fprintln(out, "\nconfig: none stored")
		return
	}
	fmt.Fprintln(out, "\nconfig (the effective pipeline configuration of the run that wrote it)")
	fmt.Fprint(out, config)
	if !strings.HasSuffix(config, "\n") {
		fmt.Fprintln(out)
	}
}

// stateVersionList prints declared state versions as name=v, sorted.
func stateVersionList(v map[string]int32) string {
	parts := make([]string, 0, len(v))
	for _, name := range slices.Sorted(maps.Keys(v)) {
		parts = append(parts, fmt.Sprintf("%s=v%d", name, v[name]))
	}
	return strings.Join(parts, ", ")
}
