package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/plugins"
)

func newUpgradeCommand() *cobra.Command {
	var operator, module string
	var timeout time.Duration
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "upgrade PIPELINE.hcl --operator NAME --module NAME[@HASH]|FILE.wasm",
		Short: "Replace a running pipeline's operator module, migrating its state",
		Long: `Upgrade asks the running pipeline of PIPELINE.hcl to replace one operator's module
with another version: a registry reference (NAME for the newest version, NAME@HASH) or a
.wasm file. While the old module keeps running, the pipeline validates the new one,
compares the versions it declares for its states with the running module's, and tries
the new module's migration (ws_migrate) on a copy of the newest checkpoint. Any problem
refuses the upgrade and nothing changes. Accepted, the pipeline stops at a final
checkpoint and restarts with the new module, migrating the state of the states whose
version changed during the restore; if that fails it restarts with the old module
(rollback). The pipeline's log says "upgrade completed" or "upgrade rolled back".

The upgrade lasts as long as the process: a restart runs the module the pipeline file
names (a registry NAME resolves to the newest version).

With --json: {"accepted": true, "operator", "module" (the new module's SHA-256),
"migrated_states" (text, "" when no state version changed)}. A refused upgrade is an
error: its reason is on stderr, as {"error", "code", "name"} with --json.`,
		Example: `  wasmstream upgrade pipeline.hcl --operator risk --module risk@3f2a9c1e
  wasmstream upgrade pipeline.hcl --operator risk --module ./operator/risk-v2.wasm`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(args[0], cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if module, err = upgradeModuleArg(module); err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			r, err := engine.RequestUpgrade(ctx, cfg, engine.UpgradeRequest{Operator: operator, Module: module}, timeout)
			if err != nil {
				return err
			}
			if !r.Accepted {
				return fmt.Errorf("upgrade refused, operator %q keeps its module: %s", operator, r.Error)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), upgradeJSON{Accepted: true, Operator: operator, Module: r.Module, MigratedStates: r.States})
			}
			states := r.States
			if states == "" {
				states = "none (state versions unchanged)"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "upgrade accepted: operator %q → module %s; migrated states: %s\n", operator, r.Module[:16], states)
			fmt.Fprintln(cmd.OutOrStdout(), "the pipeline stops at a checkpoint and restarts with the new module; its log reports the outcome")
			return nil
		},
	}
	cmd.Flags().StringVar(&operator, "operator", "", "the operator to upgrade (required)")
	cmd.Flags().StringVar(&module, "module", "", "the new module: NAME, NAME@HASH (registry) or a .wasm file (required)")
	cmd.Flags().DurationVar(&timeout, "timeout", 2*time.Minute, "how long to wait for the pipeline's checks")
	addJSONFlag(cmd, &asJSON, "the accepted upgrade")
	_ = cmd.MarkFlagRequired("operator")
	_ = cmd.MarkFlagRequired("module")
	return cmd
}

// upgradeJSON is upgrade --json.
type upgradeJSON struct {
	Accepted       bool   `json:"accepted"`
	Operator       string `json:"operator"`
	Module         string `json:"module"`
	MigratedStates string `json:"migrated_states"`
}

// upgradeModuleArg makes a file argument absolute: the pipeline process,
// which may run elsewhere, reads it.
func upgradeModuleArg(module string) (string, error) {
	ref, err := plugins.ParseRef(module)
	if err != nil {
		return "", err
	}
	if !ref.IsLocal() {
		return module, nil
	}
	abs, err := filepath.Abs(ref.Path)
	if err != nil {
		return "", errors.Join(fmt.Errorf("module %s", module), err)
	}
	return abs, nil
}
