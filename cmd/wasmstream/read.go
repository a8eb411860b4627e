package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/natsio"
)

type readFlags struct {
	config  string
	stream  string
	subject string
	from    uint64
	follow  bool
	headers bool
}

func newReadCommand(g *globalFlags) *cobra.Command {
	f := &readFlags{}
	cmd := &cobra.Command{
		Use:   "read --config PIPELINE.hcl --subject SUBJECT",
		Short: "Print the messages a stream holds for a subject (outputs, dead letters)",
		Long: `Read prints the messages stored in the pipeline's NATS for a subject, oldest first,
one per line: the stream sequence, the subject and the payload (with --headers, the
headers too). It stops at the end unless --follow is given. The stream is found from
the subject, or given with --stream.`,
		Example: `  wasmstream read --config examples/payment-risk/pipeline.hcl --subject risk.totals
  wasmstream read --config pipeline.hcl --subject 'wasmstream.dlq.>' --headers`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return read(cmd, g, f) },
	}
	cmd.Flags().StringVar(&f.config, "config", "", "pipeline file whose server to use (required)")
	cmd.Flags().StringVar(&f.subject, "subject", "", "subject filter, wildcards allowed (required)")
	cmd.Flags().StringVar(&f.stream, "stream", "", "stream to read (default: the stream that holds the subject)")
	cmd.Flags().Uint64Var(&f.from, "from", 1, "first stream sequence to read")
	cmd.Flags().BoolVar(&f.follow, "follow", false, "keep waiting for new messages")
	cmd.Flags().BoolVar(&f.headers, "headers", false, "print headers")
	_ = cmd.MarkFlagRequired("config")
	_ = cmd.MarkFlagRequired("subject")
	return cmd
}

func read(cmd *cobra.Command, g *globalFlags, f *readFlags) error {
	cfg, err := loadConfig(f.config, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	conn, err := engine.ConnectClient(ctx, cfg, newLogger(g, cfg), engine.AsData)
	if err != nil {
		return err
	}
	defer conn.Close()
	out := cmd.OutOrStdout()
	return natsio.ReadStored(ctx, conn, natsio.ReadSpec{Stream: f.stream, Subject: f.subject, From: f.from, Follow: f.follow, IdleWait: time.Second},
		func(m natsio.Message) error {
			fmt.Fprintf(out, "%d %s %s\n", m.Sequence, m.Subject, m.Data)
			if f.headers {
				for _, k := range slices.Sorted(maps.Keys(m.Header)) {
					for _, v := range m.Header[k] {
						fmt.Fprintf(out, "    %s: %s\n", k, v)
					}
				}
			}
			return nil
		})
}
