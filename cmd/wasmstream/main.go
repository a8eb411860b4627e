// Command wasmstream runs stream pipelines whose operators are WebAssembly
// modules with host-owned keyed state, fed by NATS JetStream.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	os.Exit(runCLI(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// runCLI runs one command line and returns its exit code (exitcode.go).
// It is main without os.Exit, so tests see the code a shell would.
func runCLI(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newCLI()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	initCompletionCommand(root)
	cmd, err := root.ExecuteC()
	if err != nil && cmd == root {
		// The root runs nothing: what fails there is the command line
		// (an unknown command).
		err = usageError(root, err)
	}
	row := exitCodeFor(err)
	if err != nil && row.name != "reported" {
		reportError(cmd, stderr, err, row)
	}
	return row.code
}

// newCLI is the root command with its shell completions (completion.go),
// the exit code table in its help and its command-line errors marked for
// exit code 2.
func newCLI() *cobra.Command {
	root := newRootCommand()
	addCompletions(root)
	root.Long += "\n\n" + exitCodeTable() + "\nWith --json, a failing command also prints {\"error\", \"code\", \"name\"} on stderr (docs/cli.md)."
	markUsageErrors(root)
	return root
}

// reportError prints err on stderr: as a JSON object when the failing
// command was given --json, so a tool reading JSON gets JSON either way.
func reportError(cmd *cobra.Command, stderr io.Writer, err error, row exitCode) {
	if wantsJSON(cmd) {
		writeJSONError(stderr, err, row)
		return
	}
	fmt.Fprintln(stderr, "error:", err)
}
