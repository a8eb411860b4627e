package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/plugins"
)

type operatorPushFlags struct {
	operatorFlags
	name        string
	description string
	initConfig  string
	limits      plugins.Limits
	json        bool
}

func newOperatorPushCommand(g *globalFlags) *cobra.Command {
	f := &operatorPushFlags{}
	cmd := &cobra.Command{
		Use:   "push FILE --name NAME [--description TEXT] [--init-config FILE] (--config PIPELINE.hcl | --server URL)",
		Short: "Validate a module and store it in the registry as a version of NAME",
		Long: `Push reads FILE, validates it as an operator module and stores it as a version of
operator NAME. It refuses, with the reason and the fix, a file that is not WebAssembly,
was built for another ABI version, lacks a required export (ws_abi_version, ws_alloc,
ws_init, ws_process, memory) or has one with the wrong signature, imports a host
function this host does not provide, is over the size limit (--max-bytes) or the
host's module limits (functions, locals, code, tables: --max-table-elements; see
docs/config.md), whose initial memory is over the memory limit (--memory-pages), or
that fails to start:
push instantiates the module and runs its ws_init once, as validate and run do, with
an empty config or the one in --init-config FILE (for an operator that needs a
config to start). A ws_init that returns an error, traps, emits or touches state (no
record is current in ws_init), runs past 5 s or out of memory refuses the module. A
refused module stores nothing.

The version is the SHA-256 of FILE. Pushing the same bytes under the same name again
changes nothing and says so. NAME is 1 to 64 characters of A-Z, a-z, 0-9, _ and -.
The registry's bucket is created by the first push.

With --json: the fields of operator list's JSON ({"name", "sha256", "size", "abi_version",
"imports", "memory_min_pages", "pushed_at", "description"}) and "ref" (NAME@SHA256),
"bucket" and "already_stored" (true when nothing changed).`,
		Example: `  wasmstream operator push operator/risk.wasm --name risk --config pipeline.hcl
  wasmstream operator push risk.wasm --name risk --description "v2: weekly limits" --server nats://nats.internal:4222
  wasmstream operator push limits.wasm --name limits --init-config limits.json --config pipeline.hcl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return pushOperator(cmd, g, f, args[0]) },
	}
	f.addFlags(cmd)
	cmd.Flags().StringVar(&f.name, "name", "", "operator name (required)")
	cmd.Flags().StringVar(&f.description, "description", "", "text shown by list and inspect")
	cmd.Flags().StringVar(&f.initConfig, "init-config", "", "file whose bytes ws_init is checked with (default: an empty config); not stored")
	cmd.Flags().Int64Var(&f.limits.MaxBytes, "max-bytes", plugins.DefaultMaxBytes, "largest module accepted, in bytes")
	cmd.Flags().Uint32Var(&f.limits.MemoryPages, "memory-pages", plugins.DefaultMemoryPages,
		"most 64 KiB pages the module's initial memory may have (match the pipeline's limits.memory_pages)")
	cmd.Flags().Uint32Var(&f.limits.MaxTableElements, "max-table-elements", plugins.DefaultMaxTableElements,
		"most elements the module's tables may declare (match the pipeline's limits.max_table_elements)")
	addJSONFlag(cmd, &f.json, "the stored version")
	_ = cmd.MarkFlagRequired("name")
	return cmd
}

func pushOperator(cmd *cobra.Command, g *globalFlags, f *operatorPushFlags, file string) error {
	if err := plugins.ValidateName(f.name); err != nil {
		return fmt.Errorf("--name: %w", err)
	}
	wasm, err := plugins.ReadModuleFile(file, f.limits)
	if err != nil {
		return err
	}
	meta := plugins.Meta{Description: f.description}
	if f.initConfig != "" {
		if meta.InitConfig, err = os.ReadFile(f.initConfig); err != nil {
			return fmt.Errorf("--init-config: %w", err)
		}
	}
	s, err := f.open(cmd, g, f.limits)
	if err != nil {
		return err
	}
	defer s.close()
	e, err := s.reg.Push(s.ctx, f.name, wasm, meta)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if f.json {
		return writeJSON(cmd.OutOrStdout(), pushJSON{Entry: e, Ref: e.Ref().String(), Bucket: s.reg.Bucket(), AlreadyStored: e.AlreadyStored})
	}
	writePushResult(cmd.OutOrStdout(), e, s.reg.Bucket())
	return nil
}

// pushJSON is operator push --json.
type pushJSON struct {
	plugins.Entry
	Ref           string `json:"ref"`
	Bucket        string `json:"bucket"`
	AlreadyStored bool   `json:"already_stored"`
}

func writePushResult(out io.Writer, e plugins.Entry, bucket string) {
	if e.AlreadyStored {
		fmt.Fprintf(out, "%s already holds these bytes (pushed %s): nothing changed\n", e, e.PushedAt.Format(timeLayout))
		return
	}
	fmt.Fprintf(out, "pushed %s to bucket %s: %s, ABI v%d, sha256 %s\n", e, bucket, humanBytes(e.Size), e.ABIVersion, e.Hash)
	fmt.Fprintf(out, "use it in a pipeline as module = %q (newest version) or %q (this version)\n", e.Name, e.String())
}
