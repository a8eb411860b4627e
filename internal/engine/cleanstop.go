package engine

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A graceful stop ends with a final checkpoint and then records its id in
// the clean-stop marker. A run that restores exactly that checkpoint knows
// nothing was processed after it, so it replays nothing; any other restore
// follows a crash (or a rollback) and counts records that were already in
// the streams as replayed. The marker only feeds metrics: it is never
// trusted for correctness.
func cleanStopFile(dataDir string) string { return filepath.Join(dataDir, "clean-stop") }

// takeCleanStop returns the checkpoint id of the marker and removes it.
func takeCleanStop(dataDir string) (uint64, bool) {
	path := cleanStopFile(dataDir)
	data, err := os.ReadFile(path)
	_ = os.Remove(path)
	if err != nil {
		return 0, false
	}
	id, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
	return id, err == nil
}

func writeCleanStop(dataDir string, id uint64) error {
	return os.WriteFile(cleanStopFile(dataDir), []byte(strconv.FormatUint(id, 10)+"\n"), 0o644)
}
