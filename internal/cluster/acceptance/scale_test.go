package acceptance

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/engine/crashpoint"
)

// cliLimit bounds one run of a wasmstream command other than worker
// (scale waits up to its own --wait, 2 minutes by default, for the
// assignment).
const cliLimit = 3 * time.Minute

// runCLI runs `wasmstream ARGS...` from this checkout and returns what
// it printed on stdout (stderr has the warnings of the pipeline file's
// validation: the tests' short lease_ttl). It fails the test, with both,
// when the command fails or outlives cliLimit.
func (d *deployment) runCLI(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.cli, args...)
	cmd.Env = environWithout(crashpoint.Env)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("wasmstream %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return strings.TrimSpace(string(out))
}

// scale runs `wasmstream scale` on the pipeline file of the first worker
// (the files differ only in data_dir) to run the operator with p tasks.
// It returns once the CLI read an assignment at that parallelism.
func (d *deployment) scale(t *testing.T, p int) string {
	t.Helper()
	file := filepath.Join(d.dir, "w0.hcl")
	return d.runCLI(t, "scale", file, "--operator", operatorName, "--parallelism", fmt.Sprint(p))
}
