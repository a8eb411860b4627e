package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/internal/state"
)

// version is set at build time with -ldflags "-X main.version=..."
// (scripts/demo.sh passes `git describe --always --dirty`).
var version = "dev"

func newVersionCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, the commit it was built from, the ABI version and the state format version",
		Long: `Version prints the version (the one given at build time with
-ldflags "-X main.version=...", else the module version of go install), the commit
the binary was built from with its time ("+dirty" when the work tree had changes),
as the Go toolchain recorded it, and the ABI and state format versions this binary
speaks.

With --json: {"version", "commit", "commit_time", "abi_version", "state_format_version"};
"commit" and "commit_time" are "" when the build recorded none.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info, _ := debug.ReadBuildInfo()
			b := buildVersion(version, info)
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), versionJSON(b))
			}
			writeVersion(cmd.OutOrStdout(), b)
			return nil
		},
	}
	addJSONFlag(cmd, &asJSON, "the versions")
	return cmd
}

// versionDoc is what version --json prints.
type versionDoc struct {
	Version            string `json:"version"`
	Commit             string `json:"commit"`
	CommitTime         string `json:"commit_time"`
	ABIVersion         int    `json:"abi_version"`
	StateFormatVersion int    `json:"state_format_version"`
}

func versionJSON(b builtFrom) versionDoc {
	return versionDoc{Version: b.Version, Commit: b.Commit, CommitTime: b.Time,
		ABIVersion: int(abi.Version), StateFormatVersion: int(state.FormatVersion)}
}

// builtFrom is what a binary knows of its own build.
type builtFrom struct {
	Version string
	// Commit is the VCS revision, with "+dirty" for a modified tree; empty
	// when the build recorded none (go run, go test, -buildvcs=false).
	Commit string
	Time   string // the commit's time, RFC 3339; may be empty
}

// buildVersion reads the version and commit: the -ldflags version wins
// over the module version; the commit comes from the vcs.* settings.
func buildVersion(ldflags string, info *debug.BuildInfo) builtFrom {
	b := builtFrom{Version: ldflags}
	if info == nil {
		return b
	}
	if b.Version == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		b.Version = info.Main.Version
	}
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && b.Commit != "" {
		b.Commit += "+dirty"
	}
	return b
}

func writeVersion(w io.Writer, b builtFrom) {
	fmt.Fprintf(w, "wasmstream %s\n", b.Version)
	switch {
	case b.Commit == "":
		fmt.Fprintln(w, "commit unknown (built without version control information)")
	case b.Time == "":
		fmt.Fprintf(w, "commit %s\n", b.Commit)
	default:
		fmt.Fprintf(w, "commit %s (%s)\n", b.Commit, b.Time)
	}
	fmt.Fprintf(w, "ABI version %d\nstate format version %d\n", abi.Version, state.FormatVersion)
}
