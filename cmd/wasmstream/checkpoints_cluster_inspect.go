package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/clusterckpt"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// clusterInspectJSON is the --json form of a cluster checkpoint: the
// global manifest's own fields at the top level, plus where it is.
type clusterInspectJSON struct {
	global.Manifest
	Object string `json:"object"`
	SHA256 string `json:"sha256"`
	Latest bool   `json:"latest"`
	Bucket string `json:"bucket"`
	Server string `json:"server"`
}

// inspectCluster prints the global manifest of cluster checkpoint rest[0],
// or of the latest.
func inspectCluster(cmd *cobra.Command, f *inspectFlags, cfg *config.Pipeline, rest []string) error {
	var id uint64
	if len(rest) > 0 {
		var err error
		if id, err = parseCheckpointID(rest[0]); err != nil {
			return err
		}
	}
	s, err := openCluster(cmd, cfg)
	if err != nil {
		return err
	}
	defer s.close()
	c, err := s.Get(s.ctx, id)
	if err != nil {
		return err
	}
	out, m := cmd.OutOrStdout(), c.Manifest
	if f.json {
		return writeJSON(out, clusterInspectJSON{Manifest: m, Object: c.Record.Manifest, SHA256: c.Record.SHA256, Latest: c.Latest,
			Bucket: s.ObjectStore(), Server: s.Server()})
	}
	writeClusterSummary(out, s, c)
	writeSources(out, m.Checkpoint.Sources)
	for _, op := range m.Checkpoint.Operators {
		writeOperatorVersion(out, op)
		writeClusterTasks(out, clusterckpt.Tasks(m, op.Name))
	}
	if f.files {
		writeTaskManifests(out, m.Checkpoint.Files)
	}
	if f.config {
		writeConfig(out, m.Checkpoint.Config)
	}
	return nil
}

// writeClusterSummary prints the checkpoint-wide facts.
func writeClusterSummary(out io.Writer, s *clusterSession, c clusterckpt.Checkpoint) {
	m, cp := c.Manifest, c.Manifest.Checkpoint
	latest := ""
	if c.Latest {
		latest = " (latest: the one workers restore)"
	}
	fmt.Fprintf(out, "cluster checkpoint %d%s\n", c.ID(), latest)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	row := func(k, format string, v ...any) { fmt.Fprintf(tw, "  %s\t"+format+"\n", append([]any{k}, v...)...) }
	row("manifest", "%s in Object Store %s on %s", c.Record.Manifest, s.ObjectStore(), s.Server())
	row("manifest sha256", "%s", c.Record.SHA256)
	row("generation", "%d (of the coordinator that completed it)", m.Generation)
	row("assignment", "%d (the epoch its workers snapshot under)", m.Assignment)
	row("workers", "%d: %s", len(m.Workers), strings.Join(m.Workers, ", "))
	row("format version", "%d (global manifest), %d (checkpoint)", m.FormatVersion, cp.FormatVersion)
	row("created", "%s", cp.Created.UTC().Format(timeLayout))
	row("completed", "%s", cp.Completed.UTC().Format(timeLayout))
	row("duration", "%s", humanDuration(cp.Metrics.DurationNanos))
	row("alignment", "%s (longest of any task)", humanDuration(cp.Metrics.AlignmentNanos))
	row("max pause", "%s (longest of any task)", humanDuration(cp.Metrics.MaxPauseNanos))
	row("mode", "%s", dashIfEmpty(cp.Metrics.Mode))
	row("bytes", "%s total, %s new (%d, %d)", humanBytes(cp.Metrics.BytesTotal), humanBytes(cp.Metrics.BytesNew),
		cp.Metrics.BytesTotal, cp.Metrics.BytesNew)
	row("task checkpoints", "%d (--files lists their manifests)", clusterckpt.TaskCheckpoints(m))
	row("recovery", "%s", formatRecovery(cp.Metrics.Recovery))
	row("config", "%d bytes (--config prints it)", len(cp.Config))
	_ = tw.Flush()
}

// writeClusterTasks prints an operator's tasks: what a data dir's table
// shows, plus where each task's state is.
func writeClusterTasks(out io.Writer, tasks []clusterckpt.Task) {
	fmt.Fprintf(out, "  tasks (%d)\n", len(tasks))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "    TASK\tKEY GROUPS\tINPUTS\tWORKER\tOBJECT\tBYTES\tNEW\tPAUSE\tALIGNMENT\tUNALIGNED")
	for _, t := range tasks {
		e := t.Entry
		fmt.Fprintf(tw, "    %d\t[%d, %d)\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Index, e.Start, e.End, formatInputs(e.Inputs),
			dashIfEmpty(t.Worker), t.Object, humanBytes(t.Bytes), humanBytes(t.BytesNew),
			humanDuration(e.PauseNanos), humanDuration(e.AlignmentNanos), yesNo(e.Unaligned))
	}
	_ = tw.Flush()
}

// writeTaskManifests prints the task manifest objects the global manifest
// references, with the size of their task checkpoint and their hash.
func writeTaskManifests(out io.Writer, files []checkpoint.FileEntry) {
	fmt.Fprintf(out, "\ntask manifests (%d objects; verify reads them and every object they list)\n", len(files))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  OBJECT\tTASK CHECKPOINT BYTES\tSHA256")
	for _, f := range files {
		fmt.Fprintf(tw, "  %s\t%d\t%s\n", f.Path, f.Size, f.SHA256)
	}
	_ = tw.Flush()
}
