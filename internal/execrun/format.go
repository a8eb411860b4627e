package execrun

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go"
)

// WriteHuman prints r as tables: outputs, dead letters, state, a summary.
func WriteHuman(w io.Writer, r *Result) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	writeOutputs(tw, r.Outputs)
	writeDeadLetters(tw, r.DeadLetters)
	writeState(tw, r)
	fmt.Fprintln(tw, summary(r))
	return tw.Flush()
}

func writeOutputs(w io.Writer, outs []Output) {
	fmt.Fprintf(w, "outputs: %d\n", len(outs))
	if len(outs) == 0 {
		return
	}
	fmt.Fprintln(w, "LINE\tOUTPUT\tSINK\tSUBJECT\tKEY\tHEADERS\tENCODING\tVALUE")
	for _, o := range outs {
		v := show(o.Value)
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", o.Line, o.Output, o.Sink, o.Subject, showInline(o.Key), headerText(o.Headers), v.Encoding, v.Text)
	}
}

func writeDeadLetters(w io.Writer, dls []DeadLetter) {
	fmt.Fprintf(w, "\ndead letters: %d\n", len(dls))
	if len(dls) == 0 {
		return
	}
	fmt.Fprintln(w, "LINE\tSUBJECT\tREASON")
	for _, d := range dls {
		fmt.Fprintf(w, "%d\t%s\t%s\n", d.Line, d.Subject, d.Reason)
	}
}

func writeState(w io.Writer, r *Result) {
	fmt.Fprintf(w, "\nstate of operator %q: %d entries\n", r.Operator, len(r.State))
	if len(r.State) == 0 {
		return
	}
	fmt.Fprintln(w, "KEY\tSTATE\tENCODING\tVALUE\tEXPIRES")
	for _, s := range r.State {
		v := show(s.Value)
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", showInline(s.Key), stateName(s), v.Encoding, v.Text, expiry(s.ExpiresAt))
	}
}

// stateName is the state's name, with a map entry's key in brackets.
func stateName(s StateValue) string {
	if !s.IsMap {
		return s.State
	}
	return s.State + "[" + showInline(s.MapKey) + "]"
}

// showInline prints a key: as text when printable, else as its encoding
// and bytes ("hex:00ff").
func showInline(b []byte) string {
	s := show(b)
	if s.Encoding == EncodingText || s.Encoding == EncodingJSON {
		return s.Text
	}
	return s.Encoding + ":" + s.Text
}

func headerText(h nats.Header) string {
	if len(h) == 0 {
		return "-"
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[name] {
			parts = append(parts, name+"="+v)
		}
	}
	return strings.Join(parts, ",")
}

func expiry(ns int64) string {
	if ns == 0 {
		return "never"
	}
	return expiryTime(ns)
}

func expiryTime(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }

func summary(r *Result) string {
	s := r.Stats
	where := "state discarded (give --state-out DIR to keep it)"
	if r.StateDir != "" {
		where = "state kept in " + r.StateDir
	}
	return fmt.Sprintf("\n%d record(s) from %s: %d processed, %d emitted, %d dead-lettered, %d instance restart(s); %s",
		s.Records, r.Input, s.Processed, s.Emitted, s.DeadLettered, s.InstanceRestarts, where)
}

// WriteJSON prints r as JSON lines, one object per output, dead letter and
// state entry, then a summary; "type" says which.
func WriteJSON(w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, o := range r.Outputs {
		if err := enc.Encode(jsonOutput(o)); err != nil {
			return err
		}
	}
	for _, d := range r.DeadLetters {
		if err := enc.Encode(jsonDeadLetter(d)); err != nil {
			return err
		}
	}
	for _, s := range r.State {
		if err := enc.Encode(jsonState(s)); err != nil {
			return err
		}
	}
	return enc.Encode(jsonSummary(r))
}
