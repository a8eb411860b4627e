package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// Exit codes of wasmstream. Scripts branch on them, so a code keeps its
// meaning once released; docs/cli.md and `wasmstream --help` print
// exitCodes, and exitcode_test.go provokes each one.
const (
	exitOK              = 0
	exitFailure         = 1
	exitUsage           = 2
	exitInvalidPipeline = 3
	exitNATSUnreachable = 4
	exitCheckpoint      = 5
	exitInputPending    = 6
	exitNotRunning      = 7
)

// exitCode is one row of the table: the code, a stable name (the "name"
// field of a --json error) and the errors it stands for.
type exitCode struct {
	code    int
	name    string
	meaning string
	matches func(error) bool
}

// exitCodes is the table, in the order errors are matched: the first row
// whose errors an error wraps decides. The more specific rows come first:
// a recovery error may wrap the NATS error that made it.
var exitCodes = []exitCode{
	{exitUsage, "usage", "bad command line: unknown command or flag, missing or extra argument, required flag not set", isAny(errUsage)},
	{exitInputPending, "input_pending", "run --stop-when-idle stopped, or gave up, with input left unread", isAny(engine.ErrInputPending)},
	{exitCheckpoint, "checkpoint", "a checkpoint or savepoint was refused or is corrupt: the run did not restore it, or verify/import/export found it damaged",
		isAny(engine.ErrRecovery, engine.ErrSavepointRestore, errVerifyFailed, checkpoint.ErrCorrupt, checkpoint.ErrMissingFile,
			checkpoint.ErrCorruptManifest, checkpoint.ErrIncompatible, checkpoint.ErrCorruptSavepoint, checkpoint.ErrCorruptArchive)},
	{exitInvalidPipeline, "invalid_pipeline", "the pipeline file is invalid, or it or a file it names cannot be read (diagnostics name file:line:column)",
		isAny(config.ErrInvalid, config.ErrRead)},
	{exitNATSUnreachable, "nats_unreachable", "NATS could not be reached: no connection to server.url, or JetStream did not answer",
		isAny(natsio.ErrConnect, natsio.ErrUnreachable)},
	{exitNotRunning, "not_running", "the command needs the running pipeline (upgrade, checkpoints trigger, a savepoint of a running pipeline) and none answers: start it with wasmstream run",
		isAny(engine.ErrNotRunning)},
}

// failureRow is the code of every other error.
var failureRow = exitCode{exitFailure, "failure", "any other failure (the message says what failed and what to do)", nil}

// errUsage marks an error about the command line rather than the work;
// markUsageErrors (exitcode_usage.go) wraps cobra's errors with it.
var errUsage = errors.New("usage")

func isAny(targets ...error) func(error) bool {
	return func(err error) bool {
		for _, t := range targets {
			if errors.Is(err, t) {
				return true
			}
		}
		return false
	}
}

// exitCodeFor returns the row of the table err falls in; exitOK for nil.
func exitCodeFor(err error) exitCode {
	if err == nil {
		return exitCode{code: exitOK, name: "ok"}
	}
	var exit *exitError
	if errors.As(err, &exit) {
		return exitCode{code: exit.code, name: "reported"}
	}
	for _, row := range exitCodes {
		if row.matches(err) {
			return row
		}
	}
	return failureRow
}

// exitCodeTable is the table as `wasmstream --help` and docs/cli.md show it.
func exitCodeTable() string {
	var b strings.Builder
	b.WriteString("Exit codes:\n")
	fmt.Fprintf(&b, "  %d  %-17s %s\n", exitOK, "ok", "success")
	rows := append([]exitCode{failureRow}, exitCodes...)
	for code := exitFailure; code <= exitNotRunning; code++ {
		for _, row := range rows {
			if row.code == code {
				fmt.Fprintf(&b, "  %d  %-17s %s\n", row.code, row.name, row.meaning)
			}
		}
	}
	return b.String()
}

// exitError carries an exit code for failures already reported to the user.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }
