package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine"
)

type savepointImportFlags struct {
	savepointCmdFlags
	name string
}

func newSavepointImportCommand(g *globalFlags) *cobra.Command {
	f := &savepointImportFlags{}
	cmd := &cobra.Command{
		Use:   "import (PIPELINE.hcl | --data-dir DIR) (FILE | objectstore:[PIPELINE/]NAME)",
		Short: "Add a savepoint archive (a file, or from the Object Store) to the data dir's savepoints",
		Long: `Import reads a savepoint archive - FILE ("-" for standard input), or objectstore:NAME
from the Object Store of the pipeline's NATS (objectstore:PIPELINE/NAME for another
pipeline's) - into <data_dir>/savepoints/NAME, where run --from-savepoint NAME restores
it and its modules are at hand (modules/<sha256>.wasm). Every file is verified against
its recorded SHA-256 before the savepoint appears: a damaged archive is refused, naming
the file, and nothing is written. --name imports it under another name. Importing the
same savepoint twice is a no-op; another savepoint of that name is refused.

With --json: the fields of savepoint list's JSON ({"name", "pipeline", "checkpoint_id",
"dir", "created", "description", "state_files", "state_bytes", "module_bytes",
"positions", "modules"}) and "from" (where the archive was read) and "already_imported".`,
		Example: `  wasmstream savepoint import pipeline.hcl before-v2.tar
  wasmstream savepoint import --data-dir /var/lib/payment-risk before-v2.tar --name prod-before-v2
  wasmstream savepoint import pipeline.hcl objectstore:payment-risk/before-v2`,
		Args: f.args(1, 1, "the archive FILE or objectstore:NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, rest, err := f.target(cmd, args)
			if err != nil {
				return err
			}
			return importSavepoint(cmd, g, t, rest[0], f.name, f.json)
		},
	}
	f.addFlags(cmd)
	cmd.Flags().StringVar(&f.name, "name", "", "import under this name instead of the archive's")
	return cmd
}

func importSavepoint(cmd *cobra.Command, g *globalFlags, t savepointTarget, ref, rename string, asJSON bool) error {
	r, from, done, err := openArchive(cmd, g, t, ref)
	if err != nil {
		return err
	}
	defer done()
	sp, already, err := checkpoint.ImportArchive(r, t.root(), rename)
	if err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	if asJSON {
		return writeJSON(cmd.OutOrStdout(), importedJSON{savepointJSON: toSavepointJSON(sp), From: from, AlreadyImported: already})
	}
	verb := "imported"
	if already {
		verb = "already there:"
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s savepoint %s (checkpoint %d of pipeline %s, %s state, %s modules) from %s into %s\n",
		verb, sp.Info.Name, sp.Info.CheckpointID, sp.Info.Pipeline, humanBytes(sp.StateBytes()), humanBytes(sp.ModuleBytes()), from, sp.Dir)
	return nil
}

// importedJSON is savepoint import --json.
type importedJSON struct {
	savepointJSON
	From            string `json:"from"`
	AlreadyImported bool   `json:"already_imported"`
}

// openArchive opens the archive ref names and says where it is from.
func openArchive(cmd *cobra.Command, g *globalFlags, t savepointTarget, ref string) (io.Reader, string, func(), error) {
	if rest, ok := strings.CutPrefix(ref, engine.ObjectStoreRefPrefix); ok {
		pipeline, name, found := strings.Cut(rest, "/")
		if !found && t.cfg != nil {
			pipeline, name = t.cfg.Name, rest
		}
		s, err := t.store(g)
		if err != nil {
			return nil, "", nil, err
		}
		rc, st, err := s.store.Get(s.ctx, pipeline, name)
		if err != nil {
			s.close()
			return nil, "", nil, err
		}
		from := fmt.Sprintf("%s in bucket %s on %s", st.Object, st.Bucket, s.conn.ClientURL())
		return rc, from, func() { rc.Close(); s.close() }, nil
	}
	if ref == "-" {
		return bufio.NewReader(cmd.InOrStdin()), "standard input", func() {}, nil
	}
	f, err := os.Open(ref)
	if err != nil {
		return nil, "", nil, fmt.Errorf("savepoint archive: %w", err)
	}
	return bufio.NewReaderSize(f, 1<<20), ref, func() { f.Close() }, nil
}
