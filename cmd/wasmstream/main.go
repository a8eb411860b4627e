// Command wasmstream runs stream pipelines whose operators are WebAssembly
// modules with host-owned keyed state, fed by NATS JetStream.
package main

import (
	"errors"
	"fmt"
	"os"
)

func main() {
	if err := newRootCommand().Execute(); err != nil {
		var exit *exitError
		if errors.As(err, &exit) {
			os.Exit(exit.code)
		}
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// exitError carries an exit code for failures already reported to the user.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }
