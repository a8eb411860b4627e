package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// serviceTarget is where pipelines and stop find the run services: a
// pipeline file's server, or --server URL.
type serviceTarget struct {
	server, creds string
}

func (t *serviceTarget) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&t.server, "server", "", "NATS server URL(s), comma-separated, instead of a pipeline file (user:password@ or token@ allowed)")
	cmd.Flags().StringVar(&t.creds, "creds", "", "NATS credentials file for --server")
}

// serverOnly is a pipeline that names only --server (and name, for stop).
func (t *serviceTarget) serverOnly(name string) *config.Pipeline {
	return &config.Pipeline{Name: name, Server: config.Server{URL: t.server, Credentials: t.creds}}
}

// check refuses a file together with --server, and --creds without it.
func (t *serviceTarget) check(withFile bool) error {
	switch {
	case withFile && t.server != "":
		return errors.New("give a pipeline file or --server, not both")
	case t.creds != "" && t.server == "":
		return errors.New("--creds goes with --server; with a pipeline file, set credentials in its server block")
	}
	return nil
}

// needOne is the error when neither a file nor --server says where to look.
func needOne(cmd *cobra.Command, what string) error {
	return fmt.Errorf("%s: say where %s: PIPELINE.hcl (that pipeline's NATS) or --server URL", cmd.CommandPath(), what)
}
