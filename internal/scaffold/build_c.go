package scaffold

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The C toolchain of scripts/build-c.sh: Debian's clang-19 with wasi-libc
// in the sysroot /usr.
const (
	cSysroot = "/usr"
	cInstall = "apt-get install -y clang-19 lld-19 libclang-rt-19-dev-wasm32 wasi-libc"
)

// cNeeds lists what the default compiler needs, each with its package.
var cNeeds = []struct{ what, path, pkg string }{
	{"the compiler clang-19", "clang-19", "clang-19"},
	{"the linker wasm-ld-19", "wasm-ld-19", "lld-19"},
	{"wasi-libc", "/usr/lib/wasm32-wasi/libc.a", "wasi-libc"},
	{"the wasi-libc headers", "/usr/include/wasm32-wasi/stdio.h", "wasi-libc"},
	{"the wasm32 compiler runtime", "/usr/lib/llvm-19/lib/clang/19/lib/wasi/libclang_rt.builtins-wasm32.a", "libclang-rt-19-dev-wasm32"},
}

// buildC compiles the operator's sources and the SDK copy's into a WASI
// reactor. CC overrides the compiler (its checks are then the compiler's).
func (b *builder) buildC(ctx context.Context) error {
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "clang-19"
		if err := checkCToolchain(); err != nil {
			return err
		}
	}
	srcs := cSources(b.dir)
	if len(srcs) == 0 {
		return missingSources(b.dir)
	}
	include := filepath.Dir(srcs[0])
	args := []string{"--target=wasm32-wasi", "--sysroot=" + cSysroot, "-mexec-model=reactor", "-O2", "-std=c11",
		"-Wall", "-Wextra", "-Werror", "-Wl,--strip-debug", "-I" + include}
	sdkSrcs, _ := filepath.Glob(filepath.Join(b.dir, SDKDir, "*.c"))
	if len(sdkSrcs) > 0 {
		args = append(args, "-I"+SDKDir)
	}
	args = append(args, "-o", b.outArg)
	args = append(args, srcs...)
	for _, s := range sdkSrcs {
		args = append(args, filepath.ToSlash(filepath.Join(SDKDir, filepath.Base(s))))
	}
	return b.run(ctx, nil, cc, args...)
}

// checkCToolchain names every missing piece of the default toolchain.
func checkCToolchain() error {
	var gone []string
	for _, n := range cNeeds {
		found := exists(n.path)
		if !filepath.IsAbs(n.path) {
			_, err := exec.LookPath(n.path)
			found = err == nil
		}
		if !found {
			gone = append(gone, n.what+" ("+n.pkg+")")
		}
	}
	if len(gone) == 0 {
		return nil
	}
	return missing(C, strings.Join(gone, ", "), cInstall)
}

func missingSources(dir string) error {
	return fmt.Errorf("%w in %s: no .c files in src/ or in the directory itself", ErrNoProject, dir)
}
