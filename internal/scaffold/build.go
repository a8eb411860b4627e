package scaffold

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ModuleName is the file a build writes in the project directory, and the
// module the scaffolded pipeline.hcl runs.
const ModuleName = "operator.wasm"

// ErrToolchainMissing is wrapped by Build's errors when a compiler or
// library it needs is not installed; the message names what to install.
var ErrToolchainMissing = errors.New("toolchain missing")

// ErrBuildFailed is wrapped by Build's errors when the toolchain ran and
// failed; its own output says why.
var ErrBuildFailed = errors.New("build failed")

// BuildOptions says what Build builds.
type BuildOptions struct {
	// Dir is the project directory; "" means the current one.
	Dir string
	// Lang is the project's language; "" detects it (Detect).
	Lang Lang
	// Out is the module to write; "" means Dir/operator.wasm.
	Out string
	// Progress gets each command line before it runs; Output gets the
	// toolchain's own output. Nil discards them.
	Progress, Output io.Writer
}

// BuildResult says what Build made.
type BuildResult struct {
	Lang Lang
	// Module is the path of the module written, as the caller named it
	// (Dir joined with operator.wasm, or Out).
	Module string
	// Size is the module's size in bytes.
	Size int64
}

// Build compiles the operator project in o.Dir to a WebAssembly module with
// the flags of scripts/build-examples.sh.
func Build(ctx context.Context, o BuildOptions) (BuildResult, error) {
	b, err := newBuilder(o)
	if err != nil {
		return BuildResult{}, err
	}
	if err := b.build(ctx); err != nil {
		return BuildResult{}, err
	}
	st, err := os.Stat(b.module)
	if err != nil {
		return BuildResult{}, fmt.Errorf("%w: %s did not write %s: %v", ErrBuildFailed, b.lang.Title(), b.module, err)
	}
	return BuildResult{Lang: b.lang, Module: b.module, Size: st.Size()}, nil
}

// builder is one build in progress.
type builder struct {
	lang Lang
	dir  string
	// module is the output path as reported; outArg the same as the
	// toolchain, which runs in dir, is given it.
	module, outArg   string
	progress, output io.Writer
}

func newBuilder(o BuildOptions) (*builder, error) {
	b := &builder{lang: o.Lang, dir: o.Dir, progress: orDiscard(o.Progress), output: orDiscard(o.Output)}
	if b.dir == "" {
		b.dir = "."
	}
	if st, err := os.Stat(b.dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w in %s: not a directory", ErrNoProject, b.dir)
	}
	if b.lang == "" {
		l, err := Detect(b.dir)
		if err != nil {
			return nil, err
		}
		b.lang = l
	}
	b.module, b.outArg = filepath.Join(b.dir, ModuleName), ModuleName
	if o.Out != "" {
		abs, err := filepath.Abs(o.Out)
		if err != nil {
			return nil, fmt.Errorf("--out %s: %w", o.Out, err)
		}
		b.module, b.outArg = o.Out, abs
	}
	return b, nil
}

func (b *builder) build(ctx context.Context) error {
	switch b.lang {
	case Go:
		return b.buildGo(ctx)
	case Rust:
		return b.buildRust(ctx)
	case C:
		return b.buildC(ctx)
	case AssemblyScript:
		return b.buildAssemblyScript(ctx)
	}
	return fmt.Errorf("%w %q: choose one of %s", ErrUnknownLang, b.lang, LangList())
}

// run runs a toolchain command in the project directory; env holds
// NAME=value settings added to the environment and shown in the command
// line.
func (b *builder) run(ctx context.Context, env []string, name string, args ...string) error {
	fmt.Fprintln(b.progress, "+ "+commandLine(env, name, args))
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = b.dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = b.output, b.output
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: %s: %v (its output is above)", ErrBuildFailed, filepath.Base(name), err)
	}
	return nil
}

// commandLine is env, name and args as a shell would take them.
func commandLine(env []string, name string, args []string) string {
	parts := append(append([]string{}, env...), name)
	for _, a := range args {
		if strings.ContainsAny(a, " \t\"'$") {
			a = fmt.Sprintf("%q", a)
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// missing is the error for a toolchain that is not installed: what is
// missing, and how to install it.
func missing(l Lang, what, install string) error {
	return fmt.Errorf("%w: %s needs %s; install: %s", ErrToolchainMissing, l.Title(), what, install)
}
