package main

import (
	"encoding/json"
	"io"

	"github.com/spf13/cobra"
)

// The --json contract every command follows (docs/cli.md):
//   - the result is one JSON document on stdout, indented (writeJSON), or
//     for a stream of records one compact JSON object per line
//     (writeJSONLine);
//   - a failure is one JSON object on stderr (writeJSONError), besides the
//     exit code;
//   - field names are snake_case and stay: a new field may appear, an old
//     one keeps its name and meaning.

// jsonFlag is the name of the flag; wantsJSON looks it up by this name, so
// commands whose flag lives in a shared flag set are found too.
const jsonFlag = "json"

// addJSONFlag registers --json on cmd, describing what it prints.
func addJSONFlag(cmd *cobra.Command, p *bool, what string) {
	cmd.Flags().BoolVar(p, jsonFlag, false, "print "+what+" as JSON (docs/cli.md)")
}

// wantsJSON reports whether cmd was given --json.
func wantsJSON(cmd *cobra.Command) bool {
	if cmd == nil {
		return false
	}
	f := cmd.Flags().Lookup(jsonFlag)
	return f != nil && f.Value.String() == "true"
}

// writeJSONLine prints v as one compact line: one record of a stream, so a
// reader can act on each line as it arrives.
func writeJSONLine(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// jsonError is a failure as --json prints it on stderr.
type jsonError struct {
	Error string `json:"error"`
	// Code is the exit code and Name its name in the table (exitcode.go).
	Code int    `json:"code"`
	Name string `json:"name"`
}

// writeJSONError prints err as a jsonError line.
func writeJSONError(stderr io.Writer, err error, row exitCode) {
	_ = writeJSONLine(stderr, jsonError{Error: err.Error(), Code: row.code, Name: row.name})
}
