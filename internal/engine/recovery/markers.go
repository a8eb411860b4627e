package recovery

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/wasmstream/wasmstream/internal/atomicfile"
	"github.com/wasmstream/wasmstream/internal/privatefs"
)

// A graceful stop ends with a final checkpoint and then records its id in
// the clean-stop marker. A run that restores exactly that checkpoint knows
// nothing was processed after it, so it replays nothing; any other restore
// follows a crash (or a rollback) and counts records that were already in
// the streams as replayed. The marker only feeds metrics: it is never
// trusted for correctness.
func cleanStopFile(dataDir string) string { return filepath.Join(dataDir, "clean-stop") }

// TakeCleanStop returns the checkpoint id of the marker and removes it.
func TakeCleanStop(dataDir string) (uint64, bool) {
	path := cleanStopFile(dataDir)
	data, err := os.ReadFile(path)
	_ = os.Remove(path)
	if err != nil {
		return 0, false
	}
	id, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
	return id, err == nil
}

// WriteCleanStop records id as the final checkpoint of a graceful stop.
func WriteCleanStop(dataDir string, id uint64) error {
	return os.WriteFile(cleanStopFile(dataDir), []byte(strconv.FormatUint(id, 10)+"\n"), privatefs.FileMode)
}

// The outbox of a checkpoint stays in it after its outputs are published
// (a checkpoint is immutable), so a restore must know whether they were:
// re-publishing them later than the output stream's duplicate window would
// store them twice. The data dir records the newest checkpoint whose
// transactional outputs are all published; a restore of a checkpoint at or
// below it drops its outbox instead of publishing it. Checkpoint ids only
// grow, also after a rollback, so the mark stays right.

// outboxMarkFile holds that checkpoint id.
func outboxMarkFile(dataDir string) string { return filepath.Join(dataDir, "OUTBOX-PUBLISHED") }

// PublishedThrough reads the mark; 0 when none.
func PublishedThrough(dataDir string) (uint64, error) {
	data, err := os.ReadFile(outboxMarkFile(dataDir))
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	id, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s holds %q, not a checkpoint id; delete it only if no transactional output of a retained checkpoint was published: %w",
			outboxMarkFile(dataDir), data, err)
	}
	return id, nil
}

// MarkPublished durably records that the outputs of every checkpoint up to
// id are published (temp file, fsync, rename, fsync dir).
func MarkPublished(dataDir string, id uint64) error {
	data := []byte(strconv.FormatUint(id, 10) + "\n")
	if err := atomicfile.Write(vfs.Default, outboxMarkFile(dataDir), data, privatefs.FileMode); err != nil {
		return fmt.Errorf("recording that the transactional outputs of checkpoint %d are published: %w", id, err)
	}
	return nil
}

// RemoveRunState removes what a run keeps in dataDir besides its caches:
// the checkpoints, the live state and the markers. A cluster worker calls
// it before it materializes the cluster checkpoint its part restores: the
// cluster's Object Store, not the data dir, holds its checkpoints.
func RemoveRunState(dataDir string) error {
	for _, p := range []string{CheckpointRoot(dataDir), LiveStateDir(dataDir), cleanStopFile(dataDir), outboxMarkFile(dataDir)} {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("reset %s: %w", p, err)
		}
	}
	return nil
}
