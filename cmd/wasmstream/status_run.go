package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// runRunStatus is status for a pipeline that wasmstream run runs: one
// question to its service, again every --watch interval.
func runRunStatus(cmd *cobra.Command, f *statusFlags, cfg *config.Pipeline) error {
	return watch(cmd, f.watch, func(ctx context.Context, out io.Writer) error {
		st, err := engine.StatusOfRun(ctx, cfg, f.timeout)
		if err != nil {
			return err
		}
		if f.json {
			return writeJSON(out, st)
		}
		printRunStatus(out, st, time.Now())
		return nil
	})
}

// watch runs show once, or, with every > 0, again every interval on a
// cleared terminal (as top does) until SIGINT. Each view is rendered
// first, so that the screen is cleared only for a complete one.
func watch(cmd *cobra.Command, every time.Duration, show func(context.Context, io.Writer) error) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	out := cmd.OutOrStdout()
	for {
		var view bytes.Buffer
		if err := show(ctx, &view); err != nil {
			return err
		}
		if every > 0 && !wantsJSON(cmd) {
			fmt.Fprint(out, "\033[H\033[2J")
		}
		if _, err := view.WriteTo(out); err != nil {
			return err
		}
		if every <= 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(every):
		}
	}
}

func printRunStatus(out io.Writer, st engine.RunStatus, now time.Time) {
	fmt.Fprintf(out, "pipeline %s: %s\n", st.Pipeline, st.State)
	fmt.Fprintf(out, "process       %s pid %d, wasmstream %s, up %s (since %s)\n", st.Host, st.PID, st.Version,
		now.Sub(st.Started).Round(time.Second), st.Started.UTC().Format(time.RFC3339))
	fmt.Fprintf(out, "data dir      %s\n", st.DataDir)
	fmt.Fprintf(out, "records       %d in, %d processed, %s/s over the last %s\n", st.RecordsIn, st.Processed,
		strconv.FormatFloat(st.RecordsPerSecond, 'f', 1, 64), time.Duration(st.RateWindowSecs*float64(time.Second)).Round(time.Second))
	fmt.Fprintf(out, "dead letters  %d\n", st.DeadLetters)
	fmt.Fprintf(out, "checkpoint    %s, %d completed since the start\n", describeCheckpoint(st.LastCheckpoint, now), st.CheckpointsCompleted)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nSOURCE\tSTREAM\tPOSITION\tPENDING")
	for _, s := range st.Sources {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", s.Name, s.Stream, s.Position, pendingText(s.Pending))
	}
	fmt.Fprintln(tw, "\nOPERATOR\tPARALLELISM\tMODULE")
	for _, op := range st.Operators {
		fmt.Fprintf(tw, "%s\t%d\t%s\n", op.Name, op.Parallelism, op.ModuleSHA256)
	}
	_ = tw.Flush()
}

// describeCheckpoint is "none yet" or "ID at TIME (AGE ago), took D".
func describeCheckpoint(c *engine.CheckpointStatus, now time.Time) string {
	if c == nil {
		return "none yet"
	}
	return fmt.Sprintf("%d at %s (%s ago), took %s", c.ID, c.Completed.UTC().Format(time.RFC3339),
		now.Sub(c.Completed).Round(time.Second), time.Duration(c.DurationMS*float64(time.Millisecond)).Round(time.Millisecond))
}

// pendingText is the count, or "?" when the server did not say.
func pendingText(p *uint64) string {
	if p == nil {
		return "?"
	}
	return strconv.FormatUint(*p, 10)
}
