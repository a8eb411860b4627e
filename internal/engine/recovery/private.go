package recovery

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wasmstream/wasmstream/internal/privatefs"
)

// privateDirs are the directories of a data dir that hold state or the
// streams in the clear, relative to it ("" is the data dir itself). The
// engine creates each 0700; one that a user or an older release made
// with looser modes lets other local users in.
var privateDirs = []string{"", "state", "checkpoints", "savepoints", "jetstream", "cache"}

// CheckPrivate returns the warnings for a data dir that other local users
// can reach: at most one, naming every directory of privateDirs that has
// group or other permission bits, its mode, and the command that fixes it.
// It changes nothing: a mode the user chose is the user's to change.
// Missing directories are not reported.
func CheckPrivate(dataDir string) []string {
	var loose []string
	for _, rel := range privateDirs {
		dir := filepath.Join(dataDir, rel)
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() {
			continue
		}
		if mode := fi.Mode().Perm(); mode&privatefs.GroupOther != 0 {
			loose = append(loose, fmt.Sprintf("%s has mode %04o", dir, mode))
		}
	}
	if len(loose) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("data dir %s is open to other local users, who can read state values, checkpoints and stream messages in it (%s); "+
		"make it private with: chmod -R go-rwx %s", dataDir, strings.Join(loose, ", "), dataDir)}
}
