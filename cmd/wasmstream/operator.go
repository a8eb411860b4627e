package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/plugins"
)

// operatorFlags are the flags every operator subcommand shares: which NATS
// holds the registry, and its bucket.
type operatorFlags struct {
	config string
	server string
	creds  string
	bucket string
}

func newOperatorCommand(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "operator",
		Short: "Push, list, inspect and remove operator modules in the registry",
		Long: `The operator registry keeps operator modules in a JetStream Object Store bucket
(default ` + plugins.DefaultBucket + `) of the pipeline's NATS. A module's version is the SHA-256
of its bytes. push validates a module before storing it (WebAssembly, ABI version,
required exports, known imports, size and memory limits, and a run of its ws_init, as
validate makes), so what the registry holds starts.

A pipeline's module attribute can then name, instead of a file:
  "risk"               the newest version of operator risk
  "risk@3f2a9c1d"      one version: its hash, or a unique prefix of 8+ hex digits
A value that contains / or ends in .wasm is a local file, as before.

Every subcommand connects like publish: --config PIPELINE.hcl uses that pipeline's
server (its url, else the embedded server of the running pipeline, else a temporary
embedded server on the pipeline's store), or --server URL names a NATS server.`,
		Example: `  wasmstream operator push operator/risk.wasm --name risk --config pipeline.hcl
  wasmstream operator list --config pipeline.hcl
  wasmstream operator inspect risk@3f2a9c1d --server nats://nats.internal:4222
  wasmstream operator rm risk@3f2a9c1d --config pipeline.hcl`,
		// Like checkpoints: a mistyped subcommand must fail, not print help.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return fmt.Errorf("%s: unknown command %q; use push, list, inspect or rm (see %s --help)",
				cmd.CommandPath(), args[0], cmd.CommandPath())
		},
	}
	cmd.AddCommand(newOperatorPushCommand(g), newOperatorListCommand(g), newOperatorInspectCommand(g), newOperatorRmCommand(g))
	return cmd
}

// addFlags registers the shared flags on a subcommand.
func (f *operatorFlags) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.config, "config", "", "pipeline file whose NATS server holds the registry")
	cmd.Flags().StringVar(&f.server, "server", "", "NATS server URL(s), comma-separated, instead of --config (user:password@ or token@ allowed)")
	cmd.Flags().StringVar(&f.creds, "creds", "", "NATS credentials file for --server")
	cmd.Flags().StringVar(&f.bucket, "bucket", plugins.DefaultBucket, "Object Store bucket of the registry")
}

// registrySession is an open registry and what closes it.
type registrySession struct {
	reg   *plugins.Registry
	ctx   context.Context
	close func()
}

// open connects as the flags say and returns the registry.
func (f *operatorFlags) open(cmd *cobra.Command, g *globalFlags, lim plugins.Limits) (*registrySession, error) {
	cfg, err := f.pipeline(cmd)
	if err != nil {
		return nil, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	logger := newLogger(g, cfg)
	conn, err := engine.ConnectClient(ctx, cfg, logger, engine.AsControl)
	if err != nil {
		stop()
		return nil, err
	}
	reg := plugins.NewRegistry(conn, plugins.Options{Bucket: f.bucket, Limits: lim, Logger: logger.Named("registry")})
	return &registrySession{reg: reg, ctx: ctx, close: func() { conn.Close(); stop() }}, nil
}

// pipeline returns the pipeline whose server to use: the --config file, or
// one that only names --server.
func (f *operatorFlags) pipeline(cmd *cobra.Command) (*config.Pipeline, error) {
	switch {
	case f.config != "" && f.server != "":
		return nil, errors.New("give --config or --server, not both")
	case f.config != "":
		if f.creds != "" {
			return nil, errors.New("--creds goes with --server; with --config, set credentials in the pipeline's server block")
		}
		return loadConfig(f.config, cmd.ErrOrStderr())
	case f.server != "":
		return &config.Pipeline{Server: config.Server{URL: f.server, Credentials: f.creds}}, nil
	}
	return nil, fmt.Errorf("%s: say where the registry is: --config PIPELINE.hcl (that pipeline's NATS) or --server URL", cmd.CommandPath())
}

// parseRegistryRef parses a command-line reference; a path is refused with
// the hint that the registry holds names.
func parseRegistryRef(s string) (plugins.Ref, error) {
	ref, err := plugins.ParseRef(s)
	if err != nil {
		return plugins.Ref{}, err
	}
	if ref.IsLocal() {
		return plugins.Ref{}, fmt.Errorf("%q is a file path; give an operator NAME or NAME@HASH as `wasmstream operator list` shows them", s)
	}
	return ref, nil
}
