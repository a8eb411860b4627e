package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// usageErr is an error about the command line. Its message is the
// original one with a pointer to the command's help, since the usage
// text itself is silenced (it would bury the message).
type usageErr struct {
	err  error
	path string // the command's path, for the --help hint
}

func (e usageErr) Error() string {
	msg := e.err.Error()
	if e.path == "" || strings.Contains(msg, "--help") {
		return msg
	}
	return msg + " (see " + e.path + " --help)"
}

func (e usageErr) Unwrap() []error { return []error{e.err, errUsage} }

// usageError marks err, a mistake in how cmd was called, for exit code 2.
func usageError(cmd *cobra.Command, err error) error {
	if err == nil {
		return nil
	}
	return usageErr{err: err, path: cmd.CommandPath()}
}

// markUsageErrors makes every command of the tree mark the errors cobra
// finds in the command line, so they exit 2 without each command knowing.
// Cobra returns them as plain errors: a flag that does not parse (the
// flag error func, inherited by subcommands), a wrong argument count (the
// Args check) and a required flag left out (checked here, inside the Args
// check, because cobra checks it itself only after the hooks a wrapper
// could use). A group command's RunE runs only to reject an unknown
// subcommand (checkpoints, savepoint, operator), so its errors are usage
// errors too. The root runs nothing: runCLI marks what it returns.
func markUsageErrors(root *cobra.Command) {
	root.SetFlagErrorFunc(usageError)
	for _, c := range root.Commands() {
		markCommand(c)
	}
}

func markCommand(c *cobra.Command) {
	c.Args = markedArgs(c.Args)
	if c.HasSubCommands() && c.RunE != nil {
		c.RunE = markedRunE(c.RunE)
	}
	for _, sub := range c.Commands() {
		markCommand(sub)
	}
}

func markedArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if check != nil {
			if err := check(cmd, args); err != nil {
				return usageError(cmd, err)
			}
		}
		if err := cmd.ValidateRequiredFlags(); err != nil {
			return usageError(cmd, err)
		}
		return usageError(cmd, cmd.ValidateFlagGroups())
	}
}

func markedRunE(run func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		return usageError(cmd, run(cmd, args))
	}
}
