package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/clusterckpt"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/savepointstore"
)

type savepointCreateFlags struct {
	opts   engine.SavepointOptions
	asJSON bool
}

func newSavepointCreateCommand(g *globalFlags) *cobra.Command {
	f := &savepointCreateFlags{}
	cmd := &cobra.Command{
		Use:   "create PIPELINE.hcl [NAME]",
		Short: "Save a checkpoint of the pipeline as a savepoint",
		Long: `Create saves a checkpoint as a savepoint in <data_dir>/savepoints/NAME. When the pipeline
runs, it asks it for a checkpoint now (as "checkpoints trigger" does) and saves that one;
otherwise it saves the newest completed checkpoint, or the retained one --checkpoint
names. Every file is copied and verified against the checkpoint's manifest, and the
operator modules that wrote the state are copied with it (from the configured module
files, the module cache or an earlier savepoint), so the savepoint is self-contained.
A damaged checkpoint is refused, naming the bad file; nothing is saved.

The default name is sp-<checkpoint id>-<yyyymmdd>t<hhmmss> (UTC). Names are 1..64 of
a-z, 0-9, _ and -, and are never reused: remove a savepoint before reusing its name.
NAME may be given as the second argument instead of --name.

For a pipeline file with a cluster block (a pipeline run by "wasmstream worker"),
create saves the latest completed cluster checkpoint, or the one --checkpoint names,
and triggers none. Every task's state is read from the Object Store
wasmstream-<pipeline>-state on the pipeline's NATS, each object checked against its
SHA-256, and restored into one local checkpoint in a temporary directory under
data_dir, which is then saved as above. It restores into "wasmstream run" of the
pipeline without its cluster block, on the same NATS streams: wasmstream run
PIPELINE.hcl --from-savepoint (NAME | FILE | objectstore:NAME).

--to-object-store also stores the savepoint's archive in the Object Store bucket
` + savepointstore.SavepointBucket + ` of the pipeline's NATS, as PIPELINE/NAME.tar.

With --json: {"name", "pipeline", "checkpoint_id", "triggered", "dir", "created",
"description", "state_files", "state_bytes", "module_bytes", "positions": {source:
last_sequence}, "modules": [{"operator", "sha256", "size"}], "object_store": {...}},
and for a cluster checkpoint "cluster": {"checkpoint", "generation", "assignment",
"manifest", "workers"}.`,
		Example: `  wasmstream savepoint create pipeline.hcl
  wasmstream savepoint create pipeline.hcl --name before-v2 --description "before the v2 rollout"
  wasmstream savepoint create pipeline.hcl --checkpoint 41 --to-object-store
  wasmstream savepoint create cluster-pipeline.hcl before-v2`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error { return createSavepoint(cmd, g, f, args) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.opts.Name, "name", "", "the savepoint's name (default sp-<checkpoint id>-<time>)")
	fl.StringVar(&f.opts.Description, "description", "", "a note kept with the savepoint")
	fl.Uint64Var(&f.opts.Checkpoint, "checkpoint", 0, "save this retained checkpoint instead of a new (running) or the newest (stopped) one; of a cluster pipeline: this completed cluster checkpoint instead of the latest")
	fl.BoolVar(&f.opts.ToObjectStore, "to-object-store", false, "also store the savepoint in the Object Store of the pipeline's NATS")
	fl.DurationVar(&f.opts.TriggerTimeout, "timeout", 2*time.Minute, "how long to wait for the running pipeline's checkpoint")
	fl.BoolVar(&f.asJSON, "json", false, "print JSON instead of text")
	return cmd
}

func createSavepoint(cmd *cobra.Command, g *globalFlags, f *savepointCreateFlags, args []string) error {
	if len(args) == 2 {
		if f.opts.Name != "" && f.opts.Name != args[1] {
			return fmt.Errorf("%s: the name is given twice (%q and --name %q); give it once", cmd.CommandPath(), args[1], f.opts.Name)
		}
		f.opts.Name = args[1]
	}
	cfg, err := loadConfig(args[0], cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var res engine.SavepointResult
	var from *clusterSource
	if clusterckpt.IsCluster(cfg) {
		var cres clusterckpt.SavepointResult
		cres, err = clusterckpt.CreateSavepoint(ctx, cfg, f.opts, newLogger(g, cfg))
		res, from = cres.SavepointResult, clusterSourceOf(cres.From)
	} else {
		res, err = engine.CreateSavepoint(ctx, cfg, f.opts, newLogger(g, cfg))
	}
	if err != nil && res.Savepoint.Dir == "" {
		return err
	}
	if f.asJSON {
		if jerr := writeJSON(cmd.OutOrStdout(), createdJSON(res, from)); jerr != nil {
			return jerr
		}
	} else {
		writeCreated(cmd.OutOrStdout(), res, from)
	}
	return err // saved, but not stored in the Object Store
}

// clusterSource is the cluster checkpoint a savepoint was made from.
type clusterSource struct {
	Checkpoint uint64   `json:"checkpoint"`
	Generation uint64   `json:"generation"`
	Assignment uint64   `json:"assignment"`
	Manifest   string   `json:"manifest"`
	Workers    []string `json:"workers"`
	Latest     bool     `json:"-"`
}

func clusterSourceOf(c clusterckpt.Checkpoint) *clusterSource {
	return &clusterSource{Checkpoint: c.ID(), Generation: c.Record.Generation, Assignment: c.Record.Assignment,
		Manifest: c.Record.Manifest, Workers: c.Manifest.Workers, Latest: c.Latest}
}

// savepointJSON is a savepoint as the subcommands print it.
type savepointJSON struct {
	Name         string                       `json:"name"`
	Pipeline     string                       `json:"pipeline"`
	CheckpointID uint64                       `json:"checkpoint_id"`
	Dir          string                       `json:"dir"`
	Created      time.Time                    `json:"created"`
	Description  string                       `json:"description"`
	StateFiles   int                          `json:"state_files"`
	StateBytes   int64                        `json:"state_bytes"`
	ModuleBytes  int64                        `json:"module_bytes"`
	Positions    map[string]uint64            `json:"positions"`
	Modules      []checkpoint.SavepointModule `json:"modules"`
}

func toSavepointJSON(sp checkpoint.Savepoint) savepointJSON {
	pos := map[string]uint64{}
	for _, s := range sp.Manifest.Sources {
		pos[s.Name] = s.LastSequence
	}
	return savepointJSON{Name: sp.Info.Name, Pipeline: sp.Info.Pipeline, CheckpointID: sp.Info.CheckpointID, Dir: sp.Dir,
		Created: sp.Info.Created, Description: sp.Info.Description, StateFiles: len(sp.Manifest.Files),
		StateBytes: sp.StateBytes(), ModuleBytes: sp.ModuleBytes(), Positions: pos, Modules: sp.Info.Modules}
}

type createdSavepointJSON struct {
	savepointJSON
	Triggered   bool                            `json:"triggered"`
	ObjectStore *savepointstore.StoredSavepoint `json:"object_store,omitempty"`
	Cluster     *clusterSource                  `json:"cluster,omitempty"`
}

func createdJSON(res engine.SavepointResult, from *clusterSource) createdSavepointJSON {
	return createdSavepointJSON{savepointJSON: toSavepointJSON(res.Savepoint), Triggered: res.Triggered, ObjectStore: res.Stored, Cluster: from}
}

// writeCreated prints what was saved: the checkpoint, its size, positions
// and modules, and where it went.
func writeCreated(out io.Writer, res engine.SavepointResult, from *clusterSource) {
	sp := res.Savepoint
	what, how := "checkpoint", "the newest checkpoint; the pipeline is not running"
	switch {
	case from != nil:
		what, how = "cluster checkpoint", fmt.Sprintf("generation %d, assignment %d, workers %s; every task restored from %s",
			from.Generation, from.Assignment, strings.Join(from.Workers, ", "), from.Manifest)
		if from.Latest {
			how = "the latest; " + how
		}
	case res.Triggered:
		how = "a checkpoint the running pipeline took for it"
	}
	fmt.Fprintf(out, "savepoint %s created from %s %d (%s)\n", sp.Info.Name, what, sp.Info.CheckpointID, how)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	writeSavepointFacts(tw, sp)
	if res.Stored != nil {
		fmt.Fprintf(tw, "  object store\t%s in bucket %s on %s (%s)\n", res.Stored.Object, res.Stored.Bucket, res.Server, humanBytes(int64(res.Stored.Size)))
	}
	_ = tw.Flush()
}

// writeSavepointFacts prints the rows create and inspect share to a
// tabwriter the caller flushes.
func writeSavepointFacts(tw io.Writer, sp checkpoint.Savepoint) {
	fmt.Fprintf(tw, "  directory\t%s\n", sp.Dir)
	fmt.Fprintf(tw, "  pipeline\t%s\n", sp.Info.Pipeline)
	fmt.Fprintf(tw, "  created\t%s\n", sp.Info.Created.UTC().Format(timeLayout))
	fmt.Fprintf(tw, "  description\t%s\n", dashIfEmpty(sp.Info.Description))
	fmt.Fprintf(tw, "  state\t%d files, %s (%d bytes)\n", len(sp.Manifest.Files), humanBytes(sp.StateBytes()), sp.StateBytes())
	fmt.Fprintf(tw, "  positions\t%s\n", formatPositions(sp.Manifest.Sources))
	fmt.Fprintf(tw, "  modules\t%s, %s\n", formatOperators(sp.Manifest.Operators), humanBytes(sp.ModuleBytes()))
}
