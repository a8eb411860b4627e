package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/natsio"
)

type publishFlags struct {
	config  string
	subject string
	idField string
	json    bool
}

func newPublishCommand(g *globalFlags) *cobra.Command {
	f := &publishFlags{}
	cmd := &cobra.Command{
		Use:   "publish --config PIPELINE.hcl --subject SUBJECT [--id-field FIELD] [FILE|-]",
		Short: "Publish JSON lines from a file or stdin to a subject of the pipeline's NATS",
		Long: `Publish reads JSON values, one per line (blank lines are skipped), and publishes each
as one message. With --id-field, that field of each object becomes the Nats-Msg-Id, so
publishing the same file twice stores every record once (within the stream's duplicate
window). It uses the pipeline's server: the configured URL, else the embedded server of
a running pipeline, else a temporary embedded server on the pipeline's store, so records
can be published before the first run. The pipeline's declared streams are created when
missing. A line that is not JSON stops the publish with its line number; the lines
before it are stored.

With --json: {"input", "subject", "lines", "published", "duplicates"}: published counts the
messages newly stored, duplicates those JetStream already held (same id). A publish
that stops at a bad line prints the document of the lines before it, then fails.`,
		Example: `  wasmstream publish --config examples/payment-risk/pipeline.hcl --subject payments.in --id-field event examples/payment-risk/events.jsonl
  echo '{"account":"acct-1","event":"e1","cents":5}' | wasmstream publish --config pipeline.hcl --subject payments.in --id-field event`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return publish(cmd, g, f, args) },
	}
	cmd.Flags().StringVar(&f.config, "config", "", "pipeline file whose server and streams to use (required)")
	cmd.Flags().StringVar(&f.subject, "subject", "", "subject to publish to (required)")
	cmd.Flags().StringVar(&f.idField, "id-field", "", "JSON field (dotted path allowed) that becomes the Nats-Msg-Id")
	addJSONFlag(cmd, &f.json, "what was published")
	_ = cmd.MarkFlagRequired("config")
	_ = cmd.MarkFlagRequired("subject")
	return cmd
}

func publish(cmd *cobra.Command, g *globalFlags, f *publishFlags, args []string) error {
	cfg, err := loadConfig(f.config, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	in, name, err := openInput(cmd, args)
	if err != nil {
		return err
	}
	defer in.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	logger := newLogger(g, cfg)
	conn, err := engine.ConnectClient(ctx, cfg, logger, engine.AsData)
	if err != nil {
		return err
	}
	defer conn.Close()
	progress := func(n int) { logger.Info("publishing", "lines", n) }
	res, err := natsio.PublishJSONLines(ctx, conn, in, f.subject, f.idField, progress)
	if f.json {
		return errors.Join(writeJSON(cmd.OutOrStdout(), publishJSON{Input: name, Subject: f.subject, Lines: res.Lines,
			Published: res.Published - res.Duplicates, Duplicates: res.Duplicates}), err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "published %d message(s) from %s to %s (%d already stored: duplicate ids)\n",
		res.Published-res.Duplicates, name, f.subject, res.Duplicates)
	return err
}

// publishJSON is publish --json: the counts the text line gives.
type publishJSON struct {
	Input      string `json:"input"`
	Subject    string `json:"subject"`
	Lines      int    `json:"lines"`
	Published  uint64 `json:"published"`
	Duplicates uint64 `json:"duplicates"`
}

func openInput(cmd *cobra.Command, args []string) (io.ReadCloser, string, error) {
	if len(args) == 0 || args[0] == "-" {
		return io.NopCloser(cmd.InOrStdin()), "stdin", nil
	}
	file, err := os.Open(args[0])
	if err != nil {
		return nil, "", err
	}
	return file, args[0], nil
}
