package plugins

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// The module cache is the pipeline's code: Fetch creates its directories
// 0700 and its files 0600, so no other local user can replace (or read) a
// module the pipeline will run.
func TestFetchCacheIsPrivate(t *testing.T) {
	testutil.NeedLooseUmask(t)
	r := newTestRegistry(t)
	mustPush(t, r, "risk", fixture(t, "good.wasm"))
	cache := filepath.Join(t.TempDir(), "cache")
	dir := filepath.Join(cache, "modules")
	path, _, err := r.Fetch(testCtx(t), mustRef(t, "risk"), dir)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{cache: 0o700, dir: 0o700, path: 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %04o, want %04o", p, got, want)
		}
	}
}
