package recovery

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// Lock creates a missing data dir 0700 and its LOCK 0600: nothing a run
// starts with is readable by another local user.
func TestLockCreatesPrivateDataDir(t *testing.T) {
	testutil.NeedLooseUmask(t)
	dir := filepath.Join(t.TempDir(), "parent", "data")
	f, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := WriteCleanStop(dir, 3); err != nil {
		t.Fatal(err)
	}
	if err := MarkPublished(dir, 3); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{
		filepath.Dir(dir): 0o700, dir: 0o700, filepath.Join(dir, "LOCK"): 0o600,
		cleanStopFile(dir): 0o600, outboxMarkFile(dir): 0o600,
	} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %04o, want %04o", path, got, want)
		}
	}
	if w := CheckPrivate(dir); len(w) != 0 {
		t.Errorf("a data dir the engine created is reported as loose: %q", w)
	}
}

// A data dir, or a directory in it, that the group or others can reach
// gets one warning naming each such directory, its mode and the fix; the
// modes are left as the user set them.
func TestCheckPrivate(t *testing.T) {
	for _, tt := range []struct {
		name  string
		modes map[string]os.FileMode // relative to the data dir; "" is the data dir
		loose []string
	}{
		{"private", map[string]os.FileMode{"": 0o700, "state": 0o700, "checkpoints": 0o700}, nil},
		{"private subdir under a loose data dir", map[string]os.FileMode{"": 0o755, "state": 0o700}, []string{""}},
		{"older release", map[string]os.FileMode{"": 0o755, "state": 0o755, "checkpoints": 0o755, "jetstream": 0o700}, []string{"", "state", "checkpoints"}},
		{"group readable state", map[string]os.FileMode{"": 0o700, "state": 0o750}, []string{"state"}},
		{"world writable cache", map[string]os.FileMode{"": 0o700, "cache": 0o703}, []string{"cache"}},
		{"jetstream, savepoints", map[string]os.FileMode{"": 0o700, "jetstream": 0o710, "savepoints": 0o705}, []string{"savepoints", "jetstream"}},
		{"unrelated dir", map[string]os.FileMode{"": 0o700, "exports": 0o755}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			for _, rel := range []string{"", "state", "checkpoints", "jetstream", "savepoints", "cache", "exports"} {
				mode, ok := tt.modes[rel]
				if !ok {
					continue
				}
				p := filepath.Join(dir, rel)
				if err := os.MkdirAll(p, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(p, mode); err != nil {
					t.Fatal(err)
				}
			}
			warnings := CheckPrivate(dir)
			if len(tt.loose) == 0 {
				if len(warnings) != 0 {
					t.Fatalf("warnings %q, want none", warnings)
				}
				return
			}
			if len(warnings) != 1 {
				t.Fatalf("warnings %q, want one", warnings)
			}
			w := warnings[0]
			for _, rel := range tt.loose {
				want := fmt.Sprintf("%s has mode %04o", filepath.Join(dir, rel), tt.modes[rel])
				if !strings.Contains(w, want) {
					t.Errorf("warning %q does not say %q", w, want)
				}
			}
			if n := strings.Count(w, " has mode "); n != len(tt.loose) {
				t.Errorf("warning %q names %d directories, want %d", w, n, len(tt.loose))
			}
			if !strings.Contains(w, "chmod -R go-rwx "+dir) {
				t.Errorf("warning %q does not give the fix", w)
			}
			for rel, mode := range tt.modes {
				fi, err := os.Stat(filepath.Join(dir, rel))
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm() != mode {
					t.Errorf("%q: mode changed from %04o to %04o", rel, mode, fi.Mode().Perm())
				}
			}
		})
	}
	if w := CheckPrivate(filepath.Join(t.TempDir(), "missing")); len(w) != 0 {
		t.Errorf("a missing data dir: warnings %q", w)
	}
}
