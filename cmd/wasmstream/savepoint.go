package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/savepointstore"
	"github.com/wasmstream/wasmstream/natsio"
)

func newSavepointCommand(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "savepoint",
		Short: "Create, list, inspect, remove, export and import savepoints: checkpoints you own",
		Long: `A savepoint is a completed checkpoint copied out of retention into
<data_dir>/savepoints/NAME, together with the operator modules that wrote its state. It
is kept until "savepoint rm" removes it, and it restores on another machine: export it
as one archive file, or store it in the Object Store bucket ` + savepointstore.SavepointBucket + `
of the pipeline's NATS (object PIPELINE/NAME.tar).

Restore one with: wasmstream run PIPELINE.hcl --from-savepoint (NAME | FILE | objectstore:NAME).
It becomes a retained checkpoint of that pipeline's data dir, which the run restores
with the usual checks (every file's checksum, module, stream identity).

list, inspect, rm, export and import (of a file) work on the data dir only: give the
pipeline file (its data_dir is used) or --data-dir DIR. create and anything with the
Object Store need the pipeline file. create, list and inspect print JSON with --json.
For a pipeline file with a cluster block, create saves a completed cluster checkpoint
from the pipeline's NATS (see savepoint create --help); the savepoint is then an
ordinary one of the data dir.`,
		Example: `  wasmstream savepoint create pipeline.hcl --name before-v2 --description "before the v2 rollout"
  wasmstream savepoint list pipeline.hcl
  wasmstream savepoint export pipeline.hcl before-v2 before-v2.tar
  wasmstream savepoint import other.hcl before-v2.tar
  wasmstream run other.hcl --from-savepoint before-v2`,
		// Like checkpoints: a mistyped subcommand must fail, not print help.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return fmt.Errorf("%s: unknown command %q; use create, list, inspect, rm, export or import (see %s --help)",
				cmd.CommandPath(), args[0], cmd.CommandPath())
		},
	}
	cmd.AddCommand(newSavepointCreateCommand(g), newSavepointListCommand(g), newSavepointInspectCommand(),
		newSavepointRmCommand(g), newSavepointExportCommand(g), newSavepointImportCommand(g))
	return cmd
}

// savepointCmdFlags are the flags the savepoint subcommands share; the
// pipeline file / --data-dir argument rules are those of checkpoints.
type savepointCmdFlags struct {
	checkpointsCmdFlags
}

// savepointTarget is where a subcommand works: the data dir, and the
// pipeline when it was given as a file (nil with --data-dir).
type savepointTarget struct {
	cfg     *config.Pipeline
	dataDir string
}

func (t savepointTarget) root() string { return engine.SavepointRootIn(t.dataDir) }

// target loads the pipeline file (or takes --data-dir) and returns the
// arguments after it.
func (f *savepointCmdFlags) target(cmd *cobra.Command, args []string) (savepointTarget, []string, error) {
	if f.dataDir != "" {
		dir, err := filepath.Abs(f.dataDir)
		if err != nil {
			return savepointTarget{}, nil, fmt.Errorf("--data-dir %q: %w", f.dataDir, err)
		}
		return savepointTarget{dataDir: dir}, args, nil
	}
	cfg, err := loadConfig(args[0], cmd.ErrOrStderr())
	if err != nil {
		return savepointTarget{}, nil, err
	}
	return savepointTarget{cfg: cfg, dataDir: cfg.DataDir}, args[1:], nil
}

// errNeedsPipeline: the Object Store is reached through the pipeline's
// server block, which --data-dir does not give.
var errNeedsPipeline = errors.New("the Object Store is on the pipeline's NATS server: give the pipeline file instead of --data-dir")

// storeSession is an open savepoint store and what closes it.
type storeSession struct {
	store *savepointstore.SavepointStore
	conn  *natsio.Conn
	ctx   context.Context
	close func()
}

// store connects to the pipeline's NATS (its url, the running pipeline's
// embedded server, or a temporary one on its store) and opens the
// savepoint store there.
func (t savepointTarget) store(g *globalFlags) (*storeSession, error) {
	if t.cfg == nil {
		return nil, errNeedsPipeline
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	conn, err := engine.ConnectClient(ctx, t.cfg, newLogger(g, t.cfg), engine.AsControl)
	if err != nil {
		stop()
		return nil, err
	}
	return &storeSession{store: savepointstore.NewSavepointStore(conn, ""), conn: conn, ctx: ctx,
		close: func() { conn.Close(); stop() }}, nil
}

// explainSavepointNotFound adds the savepoints that do exist to a
// not-found error, so the user can pick one without another command.
func explainSavepointNotFound(root string, err error) error {
	if !errors.Is(err, checkpoint.ErrSavepointNotFound) {
		return err
	}
	names, lerr := checkpoint.ListSavepoints(root)
	switch {
	case lerr != nil:
		return fmt.Errorf("%w; listing %s failed too: %v", err, root, lerr)
	case len(names) == 0:
		return fmt.Errorf("%w; %s holds no savepoints", err, root)
	}
	return fmt.Errorf("%w; savepoints in %s: %s", err, root, strings.Join(names, ", "))
}
