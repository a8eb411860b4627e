package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

type pipelinesFlags struct {
	target          serviceTarget
	json            bool
	watch           time.Duration
	listen, timeout time.Duration
}

func newPipelinesCommand() *cobra.Command {
	f := &pipelinesFlags{}
	cmd := &cobra.Command{
		Use:   "pipelines [PIPELINE.hcl]",
		Short: "List the pipelines wasmstream run runs on a NATS server, with throughput, lag and last checkpoint",
		Long: `Pipelines finds every wasmstream run on a NATS server through NATS service discovery
(each run registers the micro service "wasmstream": $SRV.INFO.wasmstream) and shows each
pipeline's state, process, records read and their rate over the last ten seconds, lag
(records pending on the server, all sources together), last checkpoint and dead letters.
The server is the pipeline file's (its url, else its running embedded server), or
--server URL. Services answer within --listen; a server with none prints an empty list.
Cluster pipelines (wasmstream worker) are not listed: see wasmstream status.`,
		Example: `  wasmstream pipelines --server nats://127.0.0.1:4222
  wasmstream pipelines pipeline.hcl --watch 2s
  wasmstream pipelines --server nats://nats.internal:4222 --creds ops.creds --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runPipelines(cmd, f, args) },
	}
	f.target.addFlags(cmd)
	addJSONFlag(cmd, &f.json, `{"pipelines": [...]}, each the status document of wasmstream status`)
	cmd.Flags().DurationVar(&f.watch, "watch", 0, "list again every interval, like top, until interrupted")
	cmd.Flags().DurationVar(&f.listen, "listen", time.Second, "how long to wait for the services to answer discovery")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 10*time.Second, "how long to wait for each pipeline's status")
	return cmd
}

func runPipelines(cmd *cobra.Command, f *pipelinesFlags, args []string) error {
	cfg, err := pipelinesServer(cmd, f, args)
	if err != nil {
		return err
	}
	return watch(cmd, f.watch, func(ctx context.Context, out io.Writer) error {
		list, err := engine.RunningPipelines(ctx, cfg, f.listen, f.timeout)
		if err != nil {
			return err
		}
		if f.json {
			return writeJSON(out, struct {
				Pipelines []engine.RunStatus `json:"pipelines"`
			}{list})
		}
		printPipelines(out, list, time.Now())
		return nil
	})
}

func pipelinesServer(cmd *cobra.Command, f *pipelinesFlags, args []string) (*config.Pipeline, error) {
	if err := f.target.check(len(args) == 1); err != nil {
		return nil, err
	}
	switch {
	case len(args) == 1:
		return loadConfig(args[0], cmd.ErrOrStderr())
	case f.target.server != "":
		return f.target.serverOnly(""), nil
	}
	return nil, needOne(cmd, "to look")
}

func printPipelines(out io.Writer, list []engine.RunStatus, now time.Time) {
	if len(list) == 0 {
		fmt.Fprintln(out, "no wasmstream run answers on this server")
		return
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PIPELINE\tSTATE\tPROCESS\tUP\tRECORDS IN\tREC/S\tLAG\tLAST CHECKPOINT\tDEAD LETTERS")
	for _, st := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s:%d\t%s\t%d\t%s\t%s\t%s\t%d\n", st.Pipeline, st.State, st.Host, st.PID,
			now.Sub(st.Started).Round(time.Second), st.RecordsIn, strconv.FormatFloat(st.RecordsPerSecond, 'f', 1, 64),
			totalLag(st.Sources), shortCheckpoint(st.LastCheckpoint, now), st.DeadLetters)
	}
	_ = tw.Flush()
}

// totalLag sums the sources' pending records; "?" when one is unknown.
func totalLag(sources []engine.SourceStatus) string {
	var sum uint64
	for _, s := range sources {
		if s.Pending == nil {
			return "?"
		}
		sum += *s.Pending
	}
	return strconv.FormatUint(sum, 10)
}

// shortCheckpoint is "-" or "ID (AGE ago)".
func shortCheckpoint(c *engine.CheckpointStatus, now time.Time) string {
	if c == nil {
		return "-"
	}
	return fmt.Sprintf("%d (%s ago)", c.ID, now.Sub(c.Completed).Round(time.Second))
}
