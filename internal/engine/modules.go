package engine

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
	"github.com/wasmstream/wasmstream/plugins"
)

// ModuleCacheDir holds the modules fetched from the operator registry,
// one file per content hash.
func ModuleCacheDir(dataDir string) string { return filepath.Join(dataDir, "cache", "modules") }

// hasRegistryModules reports whether an operator names its module by a
// registry reference.
func hasRegistryModules(cfg *config.Pipeline) bool {
	for _, oc := range cfg.Operators {
		if oc.ModuleRef != "" {
			return true
		}
	}
	return false
}

// resolveModules fetches every operator module named by a registry
// reference (NAME or NAME@HASH) into the data dir's module cache and points
// the operator at that file. The reference is pinned to the full hash it
// resolved to, so the effective config (kept with each checkpoint) says
// exactly which version ran.
func resolveModules(ctx context.Context, cfg *config.Pipeline, conn *natsio.Conn, logger hclog.Logger) error {
	reg := plugins.NewRegistry(conn, plugins.Options{Logger: logger})
	for i := range cfg.Operators {
		oc := &cfg.Operators[i]
		if oc.ModuleRef == "" {
			continue
		}
		ref, err := plugins.ParseRef(oc.ModuleRef)
		if err != nil {
			return fmt.Errorf("%s: operator %q: %w", config.Pos(oc.ModuleRange), oc.Name, err)
		}
		path, e, err := reg.Fetch(ctx, ref, ModuleCacheDir(cfg.DataDir))
		if err != nil {
			return fmt.Errorf("%s: operator %q: module %s: %w (push it with: wasmstream operator push FILE --name %s)",
				config.Pos(oc.ModuleRange), oc.Name, oc.ModuleRef, err, ref.Name)
		}
		logger.Info("operator module from the registry", "operator", oc.Name, "ref", oc.ModuleRef, "version", e.Hash[:16], "pushed_at", e.PushedAt)
		oc.Module, oc.ModuleRef = path, e.Name+"@"+e.Hash
	}
	return nil
}
