package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/protocol"
)

// checkpointBase is a valid pipeline without a checkpoint block, to which tests append one.
const checkpointBase = `name = "p"
stream "S" {
  subjects = ["in.>", "out.>"]
}
source "in" {
  stream  = "S"
  subject = "in.>"
}
operator "o" {
  module = "o.wasm"
  inputs = ["in"]
  key {
    json_field = "id"
  }
  outputs = { out = "out" }
}
sink "out" {
  subject = "out.x"
}
`

// TestCheckpointDecode: every attribute left out keeps its default, each written one replaces
// only its own, and the boundaries of interval and retain are accepted.
func TestCheckpointDecode(t *testing.T) {
	def := defaultCheckpoint()
	with := func(change func(*Checkpoint)) Checkpoint {
		c := def
		change(&c)
		return c
	}
	for _, tc := range []struct {
		block    string
		want     Checkpoint
		warnings int
	}{
		{"", def, 0},
		{"checkpoint {}", def, 0},
		{`checkpoint { retain = 5 }`, with(func(c *Checkpoint) { c.Retain = 5 }), 0},
		{`checkpoint { interval = null }`, def, 0},
		{`checkpoint { interval = "0s" }`, with(func(c *Checkpoint) { c.Interval = 0 }), 0},
		{`checkpoint { interval = "10ms" }`, with(func(c *Checkpoint) { c.Interval = 10 * time.Millisecond }), 0},
		{`checkpoint { interval = "1h30m" }`, with(func(c *Checkpoint) { c.Interval = 90 * time.Minute }), 0},
		{`checkpoint { timeout = "1ns" }`, with(func(c *Checkpoint) { c.Timeout = 1 }), 0},
		{`checkpoint { min_pause = "2s" }`, with(func(c *Checkpoint) { c.MinPause = 2 * time.Second }), 0},
		{`checkpoint { retain = 1 }`, with(func(c *Checkpoint) { c.Retain = 1 }), 0},
		{`checkpoint { retain = "1000" }`, with(func(c *Checkpoint) { c.Retain = 1000 }), 0},
		{`checkpoint { mode = "unaligned" }`, with(func(c *Checkpoint) { c.Mode = protocol.Unaligned }), 0},
		{`checkpoint { alignment_timeout = "30s" }`, with(func(c *Checkpoint) { c.AlignmentTimeout = 30 * time.Second }), 0},
		{"checkpoint {\n alignment_timeout = \"0s\"\n timeout = \"1s\"\n}", with(func(c *Checkpoint) { c.Timeout = time.Second }), 0},
		// Ignored in unaligned mode: dropped from the result, with a warning.
		{"checkpoint {\n mode = \"unaligned\"\n alignment_timeout = \"30s\"\n}", with(func(c *Checkpoint) { c.Mode = protocol.Unaligned }), 1},
		{"checkpoint {\n mode = \"unaligned\"\n alignment_timeout = \"0s\"\n}", with(func(c *Checkpoint) { c.Mode = protocol.Unaligned }), 1},
		{"checkpoint {\n mode = \"unaligned\"\n alignment_timeout = null\n}", with(func(c *Checkpoint) { c.Mode = protocol.Unaligned }), 0},
		// Not shorter than the timeout, written or default: legal, with a warning.
		{"checkpoint {\n timeout = \"1m\"\n alignment_timeout = \"1m\"\n}", with(func(c *Checkpoint) {
			c.Timeout, c.AlignmentTimeout = time.Minute, time.Minute
		}), 1},
		{`checkpoint { alignment_timeout = "11m" }`, with(func(c *Checkpoint) { c.AlignmentTimeout = 11 * time.Minute }), 1},
	} {
		p, diags, err := Parse([]byte(checkpointBase+tc.block+"\n"), "/cfg/p.hcl")
		if err != nil {
			t.Errorf("%s: %v", tc.block, err)
			continue
		}
		got := p.Checkpoint
		if (got.Range.Start.Line == 0) != (tc.block == "") {
			t.Errorf("%s: range %v", tc.block, got.Range)
		}
		got.Range = tc.want.Range
		if got != tc.want || len(diags.Warnings()) != tc.warnings {
			t.Errorf("%s:\n got  %+v, warnings %v\n want %+v and %d warnings", tc.block, got, diags, tc.want, tc.warnings)
		}
	}
}

// TestCheckpointErrors: each value out of range is an error at the attribute's value that names
// the block and the setting, and wraps ErrInvalid. Messages are in the golden files; this table
// pins the boundaries.
func TestCheckpointErrors(t *testing.T) {
	for _, tc := range []struct{ attr, value, want string }{
		{"interval", `"-1ns"`, "must not be negative"},
		{"interval", `"9ms"`, "is too small"},
		{"interval", `"9999999ns"`, "is too small"},
		{"interval", `"soon"`, "is not a duration"},
		{"timeout", `"0s"`, "must be positive"},
		{"timeout", `"-1s"`, "must be positive"},
		{"min_pause", `"-1ns"`, "must not be negative"},
		{"alignment_timeout", `"-1s"`, "must not be negative"},
		{"mode", `"Aligned"`, "use one of: aligned, unaligned"},
		{"mode", `"exactly_once"`, "use one of: aligned, unaligned"},
		{"retain", `0`, "must be from 1 to 1000"},
		{"retain", `1001`, "must be from 1 to 1000"},
		{"retain", `2.5`, "must be a whole number"},
	} {
		src := checkpointBase + "checkpoint {\n  " + tc.attr + " = " + tc.value + "\n}\n"
		_, diags, err := Parse([]byte(src), "p.hcl")
		prefix := "p.hcl:21:"
		if len(diags) != 1 || !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), prefix) ||
			!strings.Contains(err.Error(), "checkpoint: "+tc.attr+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s = %s: got %v, want one error at %s about %s containing %q", tc.attr, tc.value, diags, prefix, tc.attr, tc.want)
		}
	}
}

// TestCheckpointOnce: a second block is an error at its header that points at the first.
func TestCheckpointOnce(t *testing.T) {
	src := checkpointBase + "checkpoint {\n  retain = 5\n}\ncheckpoint {\n  retain = 7\n}\n"
	_, _, err := Parse([]byte(src), "p.hcl")
	if err == nil || !strings.Contains(err.Error(), "p.hcl:23:1: checkpoint: only one checkpoint block is allowed (first at p.hcl:20:1)") {
		t.Errorf("second checkpoint block: %v", err)
	}
}
