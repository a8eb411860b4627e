package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/scaffold"
)

func newBuildCommand() *cobra.Command {
	var lang, out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "build [DIR]",
		Short: "Build the operator project in DIR (default .) into a WebAssembly module",
		Long: `Build detects the language of the operator project in DIR (default the current
directory): a go.mod is Go, a Cargo.toml Rust, a package.json naming assemblyscript
AssemblyScript, .c files in src/ (or DIR) C; --lang says it when DIR holds several.
It builds DIR/operator.wasm (or --out) with the flags of scripts/build-examples.sh:

  Go              GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared
  Rust            RUSTC=<a rustc with the wasm32 std> cargo build --offline --release
                  --target wasm32-unknown-unknown (Debian's /usr/bin/rustc first)
  C               clang-19 --target=wasm32-wasi --sysroot=/usr -mexec-model=reactor -O2
                  -std=c11 -Wall -Wextra -Werror -Wl,--strip-debug (CC overrides clang-19),
                  with src/*.c and wasmstream-sdk/*.c
  AssemblyScript  npm ci when node_modules has no compiler, then asc assembly/index.ts
                  with the project's asconfig.json

It prints each command, then the module's path and size. A missing compiler or
library is an error naming the packages to install.

With --json the commands go to stderr and stdout has {"module", "lang", "size"}: the
module's path, the language detected (or given) and the size in bytes.`,
		Example: `  wasmstream build
  wasmstream build payments-total
  wasmstream build --out /tmp/op.wasm`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := scaffold.BuildOptions{Out: out, Progress: cmd.OutOrStdout(), Output: cmd.ErrOrStderr()}
			if asJSON {
				o.Progress = cmd.ErrOrStderr() // stdout holds the one JSON document
			}
			if len(args) == 1 {
				o.Dir = args[0]
			}
			if lang != "" {
				l, err := scaffold.ParseLang(lang)
				if err != nil {
					return fmt.Errorf("--lang: %w", err)
				}
				o.Lang = l
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			res, err := scaffold.Build(ctx, o)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), builtDoc{Module: res.Module, Lang: string(res.Lang), Size: res.Size})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "built %s (%s operator): %s (%d bytes)\n", res.Module, res.Lang.Title(), humanBytes(res.Size), res.Size)
			return nil
		},
	}
	cmd.Flags().StringVar(&lang, "lang", "", "the project's language, when DIR holds several: "+scaffold.LangList())
	cmd.Flags().StringVarP(&out, "out", "o", "", "the module to write (default DIR/operator.wasm)")
	addJSONFlag(cmd, &asJSON, "the module built")
	return cmd
}

// builtDoc is what build --json prints.
type builtDoc struct {
	Module string `json:"module"`
	Lang   string `json:"lang"`
	Size   int64  `json:"size"`
}
