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
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the commit it was built from, the ABI version and the state format version",
		Long: `Version prints the version (the one given at build time with
-ldflags "-X main.version=...", else the module version of go install), the commit
the binary was built from with its time ("+dirty" when the work tree had changes),
as the Go toolchain recorded it, and the ABI and state format versions this binary
speaks.`,
		Args: cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			info, _ := debug.ReadBuildInfo()
			writeVersion(cmd.OutOrStdout(), buildVersion(version, info))
		},
	}
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
