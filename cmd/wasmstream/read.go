package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"time"
	"unicode/utf8"

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
	json    bool
}

func newReadCommand(g *globalFlags) *cobra.Command {
	f := &readFlags{}
	cmd := &cobra.Command{
		Use:   "read --config PIPELINE.hcl --subject SUBJECT",
		Short: "Print the messages a stream holds for a subject (outputs, dead letters)",
		Long: `Read prints the messages stored in the pipeline's NATS for a subject, oldest first,
one per line: the stream sequence, the subject and the payload (with --headers, the
headers too). It stops at the end unless --follow is given. The stream is found from
the subject, or given with --stream.

With --json: one JSON object per message and line, {"stream", "sequence", "subject",
"time", "data", "data_encoding", "headers"}: data is the payload itself when it is JSON
(data_encoding "json"), else a string, the text ("text") or its base64 ("base64");
headers are always included, as {"NAME": ["value", ...]}.`,
		Example: `  wasmstream read --config examples/payment-risk/pipeline.hcl --subject risk.totals
  wasmstream read --config pipeline.hcl --subject 'wasmstream.dlq.>' --headers
  wasmstream read --config pipeline.hcl --subject risk.totals --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return read(cmd, g, f) },
	}
	cmd.Flags().StringVar(&f.config, "config", "", "pipeline file whose server to use (required)")
	cmd.Flags().StringVar(&f.subject, "subject", "", "subject filter, wildcards allowed (required)")
	cmd.Flags().StringVar(&f.stream, "stream", "", "stream to read (default: the stream that holds the subject)")
	cmd.Flags().Uint64Var(&f.from, "from", 1, "first stream sequence to read")
	cmd.Flags().BoolVar(&f.follow, "follow", false, "keep waiting for new messages")
	cmd.Flags().BoolVar(&f.headers, "headers", false, "print headers")
	addJSONFlag(cmd, &f.json, "one line per message")
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
	emit := func(m natsio.Message) error { return printMessage(out, m, f.headers) }
	if f.json {
		emit = func(m natsio.Message) error { return writeJSONLine(out, toMessageJSON(m)) }
	}
	return natsio.ReadStored(ctx, conn, natsio.ReadSpec{Stream: f.stream, Subject: f.subject, From: f.from, Follow: f.follow, IdleWait: time.Second}, emit)
}

func printMessage(out io.Writer, m natsio.Message, headers bool) error {
	fmt.Fprintf(out, "%d %s %s\n", m.Sequence, m.Subject, m.Data)
	if headers {
		for _, k := range slices.Sorted(maps.Keys(m.Header)) {
			for _, v := range m.Header[k] {
				fmt.Fprintf(out, "    %s: %s\n", k, v)
			}
		}
	}
	return nil
}

// messageJSON is one message as read --json prints it.
type messageJSON struct {
	Stream       string              `json:"stream"`
	Sequence     uint64              `json:"sequence"`
	Subject      string              `json:"subject"`
	Time         time.Time           `json:"time"`
	Data         any                 `json:"data"`
	DataEncoding string              `json:"data_encoding"`
	Headers      map[string][]string `json:"headers"`
}

func toMessageJSON(m natsio.Message) messageJSON {
	j := messageJSON{Stream: m.Stream, Sequence: m.Sequence, Subject: m.Subject, Time: m.Time, Headers: map[string][]string(m.Header)}
	if j.Headers == nil {
		j.Headers = map[string][]string{}
	}
	j.Data, j.DataEncoding = payloadJSON(m.Data)
	return j
}

// payloadJSON is a payload for a JSON document: itself when it is JSON, so
// a tool reads the record without decoding twice; else text or base64.
func payloadJSON(b []byte) (any, string) {
	switch {
	case json.Valid(b):
		var compact bytes.Buffer
		if json.Compact(&compact, b) == nil {
			return json.RawMessage(compact.Bytes()), "json"
		}
	case utf8.Valid(b):
		return string(b), "text"
	}
	return base64.StdEncoding.EncodeToString(b), "base64"
}
