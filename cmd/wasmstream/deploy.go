package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/cluster/deploy"
)

type deployFlags struct {
	from   string
	force  bool
	asJSON bool
}

func newDeployCommand(g *globalFlags) *cobra.Command {
	f := &deployFlags{}
	cmd := &cobra.Command{
		Use:   "deploy PIPELINE.hcl [--from-savepoint NAME|FILE|objectstore:NAME]",
		Short: "Prepare a cluster pipeline's NATS before its workers start, optionally from a savepoint",
		Long: `Deploy prepares the NATS JetStream cluster of a pipeline with a cluster block (a pipeline
run by "wasmstream worker") before any traffic: it creates the declared streams, the
dead-letter stream, the exchange streams between operators of a dataflow graph, the
control bucket (KV wasmstream-<pipeline>) and the state Object Store
(wasmstream-<pipeline>-state) with cluster.replicas replicas, as the first worker would,
and prints which existed already. Creating replicated assets is best done before the
workers start, never during a node failure. Running it again changes nothing.

With --from-savepoint it also seeds the cluster with a savepoint's state, so that the
workers started afterwards restore it: the way from "wasmstream run" (or another
cluster) into a cluster. The savepoint is a NAME of the data dir, an archive FILE or
objectstore:NAME (objectstore:PIPELINE/NAME), as "wasmstream run --from-savepoint"
takes it. Deploy holds the coordinator lease meanwhile (as "deploy", with a 15s TTL,
released at the end), checks that the savepoint fits the pipeline (the same operators,
max_parallelism and modules, or an unchanged state_version; positions in the streams
the sources read), uploads each task's state to the Object Store as a worker would,
and commits it as the next cluster checkpoint. The positions, tasks and state of the savepoint are kept as
they are; only the checkpoint id is the cluster's.

It refuses while workers run (they hold the coordinator or membership leases: stop
them first), and when the cluster has completed checkpoints, unless --force: the
seeded checkpoint then becomes the latest, and the workers restore it instead.

With --json: {"assets": {"server", "assets": [{"kind", "name", "replicas", "created"}]}}
and with --from-savepoint also "savepoint", "savepoint_checkpoint", "record" (the
completion record: "checkpoint", "generation", "assignment", "manifest", "sha256"),
"replaced", "task_checkpoints", "bytes_total", "bytes_uploaded" and "notes".`,
		Example: `  wasmstream deploy pipeline.hcl
  wasmstream deploy pipeline.hcl --from-savepoint before-v2
  wasmstream deploy pipeline.hcl --from-savepoint objectstore:before-v2 --force`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runDeploy(cmd, g, f, args[0]) },
	}
	cmd.Flags().StringVar(&f.from, "from-savepoint", "", "seed the cluster with this savepoint: NAME (of the data dir), FILE (an archive) or objectstore:NAME")
	cmd.Flags().BoolVar(&f.force, "force", false, "with --from-savepoint: seed it although the cluster has completed checkpoints; it becomes the latest")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print JSON instead of text")
	return cmd
}

func runDeploy(cmd *cobra.Command, g *globalFlags, f *deployFlags, path string) error {
	if f.force && f.from == "" {
		return fmt.Errorf("%s: --force applies to --from-savepoint only", cmd.CommandPath())
	}
	cfg, err := loadConfig(path, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	logger := newLogger(g, cfg)
	out := cmd.OutOrStdout()
	if f.from == "" {
		assets, err := deploy.Ensure(ctx, cfg, logger)
		if err != nil {
			return err
		}
		if f.asJSON {
			return writeJSON(out, struct {
				Assets deploy.Assets `json:"assets"`
			}{assets})
		}
		writeAssets(out, cfg.Name, assets)
		fmt.Fprintf(out, "ready: start the workers (wasmstream worker %s --id ID)\n", path)
		return nil
	}
	res, err := deploy.Seed(ctx, cfg, deploy.Options{Savepoint: f.from, Force: f.force, Logger: logger})
	if err != nil {
		if len(res.Assets.List) > 0 && !f.asJSON {
			writeAssets(out, cfg.Name, res.Assets)
		}
		return err
	}
	if f.asJSON {
		return writeJSON(out, res)
	}
	writeAssets(out, cfg.Name, res.Assets)
	writeSeeded(out, res, path)
	return nil
}

// writeAssets prints each asset and whether deploy created it.
func writeAssets(out io.Writer, pipeline string, a deploy.Assets) {
	fmt.Fprintf(out, "pipeline %q on %s:\n", pipeline, a.Server)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, as := range a.List {
		state := "exists"
		if as.Created {
			state = "created"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\tR%d\n", as.Kind, as.Name, state, as.Replicas)
	}
	_ = tw.Flush()
}

// writeSeeded prints the seeded checkpoint.
func writeSeeded(out io.Writer, res deploy.Result, path string) {
	r, cp := res.Record, res.Manifest.Checkpoint
	fmt.Fprintf(out, "seeded cluster checkpoint %d (generation %d, assignment %d) from savepoint %s (its checkpoint %d)\n",
		r.Checkpoint, r.Generation, r.Assignment, res.Savepoint, res.SavepointCheckpoint)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  manifest\t%s (sha256 %s)\n", r.Manifest, shortHash(r.SHA256))
	fmt.Fprintf(tw, "  positions\t%s\n", formatPositions(cp.Sources))
	fmt.Fprintf(tw, "  operators\t%s\n", formatOperators(cp.Operators))
	fmt.Fprintf(tw, "  uploaded\t%s of %s in %d task checkpoints (%d of %d bytes)\n",
		humanBytes(res.BytesUploaded), humanBytes(res.BytesTotal), res.TaskCheckpoints, res.BytesUploaded, res.BytesTotal)
	_ = tw.Flush()
	for _, n := range res.Notes {
		fmt.Fprintf(out, "note: %s\n", n)
	}
	if res.Replaced != 0 {
		fmt.Fprintf(out, "--force: checkpoint %d replaces %d as the latest; the workers restore %d, not %d\n", r.Checkpoint, res.Replaced, r.Checkpoint, res.Replaced)
	}
	fmt.Fprintf(out, "the workers started now restore it: wasmstream worker %s --id ID\n", path)
}
