package engine

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/privatefs"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/plugins"
)

// looseDataDirWarning is in the warning Open logs for a data dir that other
// local users can reach.
const looseDataDirWarning = "is open to other local users"

// TestDataDirIsPrivate: another local user can read nothing a pipeline
// keeps (design.md, invariant 9). A first run creates the data dir and
// checkpoints, publishes transactional outputs and stops gracefully; its
// module is then pushed to the registry and a second run fetches it from
// there and restores the first run's checkpoint; a savepoint is taken. No
// file or directory under the data dir, from LOCK to the table files of the
// live state and of every checkpoint, the markers, the module and
// compilation caches, the savepoint and the JetStream store, has a group
// or other permission bit, and Open did not warn about the data dir it made.
func TestDataDirIsPrivate(t *testing.T) {
	skipInRacePass(t)
	testutil.NeedLooseUmask(t)
	// No seeded compilation cache: the engine creates every directory.
	s := sumSetup{dataDir: filepath.Join(t.TempDir(), "data"), port: testutil.FreePort(t),
		module: testutil.GoGuest(t, sum2Pkg), parallelism: 2, sinkMode: config.ModeTransactional}
	wasm, err := os.ReadFile(s.module)
	if err != nil {
		t.Fatal(err)
	}
	var logged strings.Builder
	logger := hclog.New(&hclog.LoggerOptions{Level: hclog.Warn, Output: io.MultiWriter(&logged, testWriter{t})})
	recs1, recs2 := sumRecords(60, 5, 1), sumRecords(40, 5, 2)
	runSums(t, s.load(t), Options{Logger: logger}, recs1)

	cfg := s.load(t)
	c, err := ConnectClient(context.Background(), cfg, logger, AsControl)
	if err != nil {
		t.Fatal(err)
	}
	_, err = plugins.NewRegistry(c, plugins.Options{}).Push(context.Background(), "sum2", wasm, plugins.Meta{})
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	s.module = "sum2"
	cfg = s.load(t)
	runSums(t, cfg, Options{Logger: logger}, recs2)
	checkSums(t, cfg, newestCheckpoint(t, cfg).ID, expectedSums(recs1, recs2)) // the second run restored the first's state
	if _, err := CreateSavepoint(context.Background(), cfg, SavepointOptions{Name: "private"}, logger); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logged.String(), looseDataDirWarning) {
		t.Errorf("Open warned about the data dir it created:\n%s", logged.String())
	}

	for _, path := range looseEntries(t, s.dataDir) {
		t.Errorf("%s is open to group or others", path)
	}
	chk := checkpoint.Dir(CheckpointRoot(cfg), newestCheckpoint(t, cfg).ID)
	for _, want := range []string{"", "LOCK", "clean-stop", "OUTBOX-PUBLISHED", "state",
		"checkpoints", chk, filepath.Join(chk, "MANIFEST.json"), filepath.Join(chk, "state"),
		"savepoints/private/SAVEPOINT.json", "cache/modules", "cache/wazero", "jetstream"} {
		if !filepath.IsAbs(want) {
			want = filepath.Join(s.dataDir, want)
		}
		if _, err := os.Stat(want); err != nil {
			t.Errorf("the walk did not check %s: %v", want, err)
		}
	}
	for _, pattern := range []string{"state/*.sst", "state/MANIFEST-*", "state/OPTIONS-*", chk + "/state/*.sst", "savepoints/private/state/*.sst", "cache/modules/*.wasm"} {
		if !filepath.IsAbs(pattern) {
			pattern = filepath.Join(s.dataDir, pattern)
		}
		if files, _ := filepath.Glob(pattern); len(files) == 0 {
			t.Errorf("no file matches %s: the walk did not check one", pattern)
		}
	}
}

// looseEntries lists, with their modes, the files and directories under
// root (root included) that have a group or other permission bit.
func looseEntries(t *testing.T, root string) []string {
	t.Helper()
	var loose []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink == 0 && fi.Mode().Perm()&privatefs.GroupOther != 0 {
			loose = append(loose, path+" "+fi.Mode().String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return loose
}

// TestOpenWarnsAboutLooseDataDir: a data dir that other local users can
// reach (here the test's own temp dir, 0777 less the umask, with a
// compilation cache made 0755) gets one warning naming each loose
// directory, its mode and the fix; the run goes on and the modes stay as
// the user set them.
func TestOpenWarnsAboutLooseDataDir(t *testing.T) {
	skipInRacePass(t)
	s := newSumSetup(t, 1)
	for _, dir := range []string{s.dataDir, filepath.Join(s.dataDir, "cache")} {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var logged strings.Builder
	logger := hclog.New(&hclog.LoggerOptions{Level: hclog.Warn, Output: io.MultiWriter(&logged, testWriter{t})})
	p, err := Open(context.Background(), s.load(t), quietOptions(t, Options{Logger: logger}))
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	if n := strings.Count(logged.String(), looseDataDirWarning); n != 1 {
		t.Fatalf("%d warnings about the data dir, want 1:\n%s", n, logged.String())
	}
	for _, want := range []string{s.dataDir + " has mode 0755", filepath.Join(s.dataDir, "cache") + " has mode 0755", "chmod -R go-rwx " + s.dataDir} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("the warning does not say %q:\n%s", want, logged.String())
		}
	}
	if fi, err := os.Stat(s.dataDir); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("the data dir's mode was changed: %v %v", fi.Mode(), err)
	}
}
