package scaffold

import (
	"context"
	"os/exec"
)

// buildGo builds a Go reactor module for wasip1 (Go 1.24 or newer has
// go:wasmexport).
func (b *builder) buildGo(ctx context.Context) error {
	if _, err := exec.LookPath("go"); err != nil {
		return missing(Go, "the go command (Go 1.24 or newer)", "Go from https://go.dev/dl/ (Debian 12 gives 1.19, too old)")
	}
	return b.run(ctx, []string{"GOOS=wasip1", "GOARCH=wasm"}, "go", "build", "-buildmode=c-shared", "-o", b.outArg, ".")
}
