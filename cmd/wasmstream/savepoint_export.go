package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/atomicfile"
	"github.com/wasmstream/wasmstream/internal/savepointstore"
)

type savepointExportFlags struct {
	savepointCmdFlags
	objectStore bool
}

func newSavepointExportCommand(g *globalFlags) *cobra.Command {
	f := &savepointExportFlags{}
	cmd := &cobra.Command{
		Use:   "export (PIPELINE.hcl | --data-dir DIR) NAME (FILE | --to-object-store)",
		Short: "Write a savepoint as one archive file, or store it in the Object Store",
		Long: `Export writes savepoint NAME as one archive (a tar holding SAVEPOINT.json, MANIFEST.json,
the checkpoint's files and the modules; format in checkpoint/FORMAT.md) to FILE, or to
standard output for "-". Every file is checked against its recorded SHA-256 on the way;
a damaged savepoint is refused, naming the file, and FILE is not created. FILE is
written under a temporary name and renamed, so it is either complete or absent. Copy it
anywhere and restore it there with "run --from-savepoint FILE" or "savepoint import".

--to-object-store stores the archive in the Object Store bucket ` + savepointstore.SavepointBucket + ` of
the pipeline's NATS instead, as PIPELINE/NAME.tar (the pipeline file is needed).

With --json: {"name", "file", "bytes", "sha256"}, or with --to-object-store the stored
object ({"pipeline", "name", "bucket", "object", "size", "stored", "checkpoint_id",
"created", "description"}) and "server" and "already_stored". FILE "-" puts the archive
itself on standard output, so --json refuses it.`,
		Example: `  wasmstream savepoint export pipeline.hcl before-v2 before-v2.tar
  wasmstream savepoint export --data-dir /var/lib/payment-risk before-v2 - | ssh other 'cat > before-v2.tar'
  wasmstream savepoint export pipeline.hcl before-v2 --to-object-store`,
		Args: f.args(1, 2, "the savepoint name and the archive file (or --to-object-store)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, rest, err := f.target(cmd, args)
			if err != nil {
				return err
			}
			switch {
			case f.objectStore && len(rest) == 2:
				return errors.New("give FILE or --to-object-store, not both")
			case f.objectStore:
				return pushSavepoint(cmd, g, t, rest[0], f.json)
			case len(rest) == 1:
				return fmt.Errorf("%s: give the archive FILE (- for standard output) or --to-object-store", cmd.CommandPath())
			}
			if f.json && rest[1] == "-" {
				return usageError(cmd, errors.New("--json with FILE \"-\": standard output holds the archive; give a FILE to print the JSON"))
			}
			return exportSavepoint(cmd, t, rest[0], rest[1], f.json)
		},
	}
	f.addFlags(cmd)
	cmd.Flags().BoolVar(&f.objectStore, "to-object-store", false, "store the archive in the Object Store of the pipeline's NATS")
	return cmd
}

// exportSavepoint writes the archive to path and prints its size and hash,
// so the copy can be checked wherever it lands.
func exportSavepoint(cmd *cobra.Command, t savepointTarget, name, path string, asJSON bool) error {
	if path == "-" {
		if err := checkpoint.WriteArchive(cmd.OutOrStdout(), t.root(), name); err != nil {
			return explainSavepointNotFound(t.root(), err)
		}
		return nil
	}
	n, sum, err := writeArchiveFile(t.root(), name, path)
	if err != nil {
		return explainSavepointNotFound(t.root(), err)
	}
	if asJSON {
		return writeJSON(cmd.OutOrStdout(), exportedJSON{Name: name, File: path, Bytes: n, SHA256: sum})
	}
	fmt.Fprintf(cmd.OutOrStdout(), "exported savepoint %s to %s (%s, %d bytes, sha256 %s)\n", name, path, humanBytes(n), n, sum)
	return nil
}

// exportedJSON is savepoint export FILE --json.
type exportedJSON struct {
	Name   string `json:"name"`
	File   string `json:"file"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// storedJSON is savepoint export --to-object-store --json.
type storedJSON struct {
	savepointstore.StoredSavepoint
	Server        string `json:"server"`
	AlreadyStored bool   `json:"already_stored"`
}

// writeArchiveFile writes the archive to a temporary file beside path,
// syncs it and renames it into place.
func writeArchiveFile(root, name, path string) (int64, string, error) {
	h := sha256.New()
	var n int64
	err := atomicfile.WriteFunc(vfs.Default, path, 0o600, func(w io.Writer) error {
		cw := &countingWriter{w: io.MultiWriter(w, h)}
		err := checkpoint.WriteArchive(cw, root, name)
		n = cw.n
		return err
	}, nil)
	return n, hex.EncodeToString(h.Sum(nil)), err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// pushSavepoint stores the savepoint in the Object Store.
func pushSavepoint(cmd *cobra.Command, g *globalFlags, t savepointTarget, name string, asJSON bool) error {
	s, err := t.store(g)
	if err != nil {
		return err
	}
	defer s.close()
	st, err := s.store.Put(s.ctx, t.root(), name)
	if err != nil {
		return explainSavepointNotFound(t.root(), err)
	}
	if asJSON {
		return writeJSON(cmd.OutOrStdout(), storedJSON{StoredSavepoint: st, Server: s.conn.ClientURL(), AlreadyStored: st.AlreadyStored})
	}
	verb := "stored"
	if st.AlreadyStored {
		verb = "already stored"
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s savepoint %s as %s in bucket %s on %s (%s)\n", verb, name, st.Object, st.Bucket, s.conn.ClientURL(), humanBytes(int64(st.Size)))
	return nil
}
