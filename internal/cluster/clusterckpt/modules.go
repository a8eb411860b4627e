package clusterckpt

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/plugins"
)

// moduleFiles finds a file holding the module of every operator of ops,
// by SHA-256, for checkpoint.CreateSavepoint: a configured module file,
// the data dir's module cache or an earlier savepoint's copy (the places
// engine.CreateSavepoint looks), else, for an operator whose module is a
// registry reference, the version of the checkpoint fetched from the
// registry into dir. The workers that wrote a cluster checkpoint run on
// other machines: this one's module cache may well lack their modules.
// CreateSavepoint checks each file's hash again while copying it.
func (s *Store) moduleFiles(ctx context.Context, ops []checkpoint.OperatorEntry, dir string, logger hclog.Logger) (map[string]string, error) {
	found := map[string]string{}
	for _, oc := range s.cfg.Operators {
		if sha, err := fileSHA256(oc.Module); err == nil && found[sha] == "" {
			found[sha] = oc.Module
		}
	}
	for _, op := range ops {
		sha := op.ModuleSHA256
		if found[sha] != "" {
			continue
		}
		for _, c := range s.localModules(sha) {
			if got, err := fileSHA256(c); err == nil && got == sha {
				found[sha] = c
				break
			}
		}
		if found[sha] != "" {
			continue
		}
		path, err := s.fetchModule(ctx, op, dir, logger)
		if err != nil {
			return nil, err
		}
		found[sha] = path
	}
	return found, nil
}

// localModules are the files of this machine that may hold module sha.
func (s *Store) localModules(sha string) []string {
	out := []string{plugins.CachePath(engine.ModuleCacheDir(s.cfg.DataDir), sha)}
	root := engine.SavepointRoot(s.cfg)
	names, _ := checkpoint.ListSavepoints(root)
	for _, name := range names {
		out = append(out, filepath.Join(checkpoint.SavepointDir(root, name), "modules", sha+".wasm"))
	}
	return out
}

// fetchModule fetches op's module version from the registry when the
// config names its module by a registry reference.
func (s *Store) fetchModule(ctx context.Context, op checkpoint.OperatorEntry, dir string, logger hclog.Logger) (string, error) {
	oc := s.cfg.Operator(op.Name)
	if oc == nil || oc.ModuleRef == "" {
		configured := "none (the pipeline file has no such operator)"
		if oc != nil {
			configured = cmp.Or(oc.Module, "none")
			if sha, err := fileSHA256(oc.Module); err == nil {
				configured = fmt.Sprintf("%s with sha256 %s", oc.Module, sha)
			}
		}
		return "", fmt.Errorf("%w: operator %q: no file holds the module that wrote the checkpoint (sha256 %s): the configured module is %s, and neither the module cache %s nor a savepoint has it; put that module back and retry",
			checkpoint.ErrModuleMissing, op.Name, op.ModuleSHA256, configured, engine.ModuleCacheDir(s.cfg.DataDir))
	}
	ref, err := plugins.ParseRef(oc.ModuleRef)
	if err != nil {
		return "", fmt.Errorf("operator %q: %w", op.Name, err)
	}
	reg := plugins.NewRegistry(s.conn, plugins.Options{Logger: logger})
	path, _, err := reg.Fetch(ctx, plugins.Ref{Name: ref.Name, Hash: op.ModuleSHA256}, dir)
	if err != nil {
		return "", fmt.Errorf("%w: operator %q: the module that wrote the checkpoint, %s@%s, from the registry: %w",
			checkpoint.ErrModuleMissing, op.Name, ref.Name, op.ModuleSHA256, err)
	}
	return path, nil
}

func fileSHA256(path string) (string, error) {
	if path == "" {
		return "", os.ErrNotExist
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return plugins.HashBytes(b), nil
}
