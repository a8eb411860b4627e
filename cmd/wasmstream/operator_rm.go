package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/plugins"
)

type operatorRmFlags struct {
	operatorFlags
	allVersions bool
	json        bool
}

func newOperatorRmCommand(g *globalFlags) *cobra.Command {
	f := &operatorRmFlags{}
	cmd := &cobra.Command{
		Use:   "rm NAME@HASH | NAME --all-versions (--config PIPELINE.hcl | --server URL)",
		Short: "Remove one version of an operator, or all of them",
		Long: `Rm removes the version NAME@HASH names (HASH: the SHA-256 or a unique prefix of 8+
hex digits). A bare NAME removes every version of the operator, and only with
--all-versions. Pipelines that already fetched a version keep their cached copy, but
a pipeline whose module names a removed version cannot start on a new machine, and
NAME alone then resolves to the newest remaining version.

With --json: {"removed": [...]}, each the fields of operator list's JSON and "ref"
(NAME@SHA256). A failure part way still prints the versions removed before it.`,
		Example: `  wasmstream operator rm risk@3f2a9c1d --config pipeline.hcl
  wasmstream operator rm risk --all-versions --server nats://nats.internal:4222`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := parseRegistryRef(args[0])
			if err != nil {
				return err
			}
			s, err := f.open(cmd, g, plugins.Limits{})
			if err != nil {
				return err
			}
			defer s.close()
			removed, err := s.reg.Remove(s.ctx, ref, plugins.RemoveOptions{AllVersions: f.allVersions})
			if f.json {
				return errors.Join(writeJSON(cmd.OutOrStdout(), removedJSON(removed)), err)
			}
			for _, e := range removed {
				fmt.Fprintf(cmd.OutOrStdout(), "removed %s (sha256 %s, pushed %s)\n", e, e.Hash, e.PushedAt.UTC().Format(timeLayout))
			}
			return err
		},
	}
	f.addFlags(cmd)
	cmd.Flags().BoolVar(&f.allVersions, "all-versions", false, "with a bare NAME: remove every version")
	addJSONFlag(cmd, &f.json, "the removed versions")
	return cmd
}

// operatorRmJSON is operator rm --json.
type operatorRmJSON struct {
	Removed []removedVersionJSON `json:"removed"`
}

type removedVersionJSON struct {
	plugins.Entry
	Ref string `json:"ref"`
}

func removedJSON(removed []plugins.Entry) operatorRmJSON {
	j := operatorRmJSON{Removed: []removedVersionJSON{}}
	for _, e := range removed {
		j.Removed = append(j.Removed, removedVersionJSON{Entry: e, Ref: e.Ref().String()})
	}
	return j
}
