package auth

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
)

func TestEnsureCreatesPrivateSeeds(t *testing.T) {
	dataDir := t.TempDir() + "/data"
	if err := Ensure(dataDir); err != nil {
		t.Fatal(err)
	}
	if mode := modeOf(t, Dir(dataDir)); mode != dirMode {
		t.Errorf("%s mode %04o, want %04o", Dir(dataDir), mode, dirMode)
	}
	for _, r := range Roles {
		if mode := modeOf(t, SeedFile(dataDir, r)); mode != seedMode {
			t.Errorf("%s mode %04o, want %04o", SeedFile(dataDir, r), mode, seedMode)
		}
	}
	control, _ := PublicKey(dataDir, Control)
	data, _ := PublicKey(dataDir, Data)
	if !strings.HasPrefix(control, "U") || !strings.HasPrefix(data, "U") || control == data {
		t.Fatalf("public keys %q and %q: want two distinct user keys", control, data)
	}
}

func TestEnsureKeepsExistingSeeds(t *testing.T) {
	dataDir := t.TempDir()
	if err := Ensure(dataDir); err != nil {
		t.Fatal(err)
	}
	before, _ := PublicKey(dataDir, Control)
	if err := Ensure(dataDir); err != nil {
		t.Fatal(err)
	}
	if after, _ := PublicKey(dataDir, Control); after != before {
		t.Fatalf("the control key changed from %s to %s", before, after)
	}
}

// TestConcurrentEnsureAgrees: a run and a client starting together end up
// with one seed per role, the one both then read.
func TestConcurrentEnsureAgrees(t *testing.T) {
	dataDir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- Ensure(dataDir) }()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(Dir(dataDir))
	if len(entries) != len(Roles) {
		t.Fatalf("auth dir holds %d files, want %d (no temporary files left)", len(entries), len(Roles))
	}
}

func TestSeedRefusals(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, dataDir string)
		want  string
	}{
		{"missing", func(t *testing.T, dataDir string) {}, "does not exist"},
		{"open to others", func(t *testing.T, dataDir string) {
			ensure(t, dataDir)
			chmod(t, SeedFile(dataDir, Data), 0o644)
		}, "open to other local users (mode 0644)"},
		{"not a seed", func(t *testing.T, dataDir string) {
			ensure(t, dataDir)
			writeFile(t, SeedFile(dataDir, Data), "hello\n")
		}, "not an nkey seed"},
		{"not a user seed", func(t *testing.T, dataDir string) {
			ensure(t, dataDir)
			// An account seed ("SA…"): a valid nkey, but not a user's.
			writeFile(t, SeedFile(dataDir, Data), "SAAGNJOZTRPYYXG2NJX3ZNGXYUSDYX2BWO447W3SHG6XQ7U66RWHQ3JUXM\n")
		}, "user seed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dataDir := t.TempDir()
			c.setup(t, dataDir)
			err := CheckSeed(dataDir, Data)
			if !errors.Is(err, ErrCredentials) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "data.nk") {
				t.Fatalf("err = %v, want ErrCredentials naming data.nk and %q", err, c.want)
			}
		})
	}
}

func ensure(t *testing.T, dataDir string) {
	t.Helper()
	if err := Ensure(dataDir); err != nil {
		t.Fatal(err)
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), seedMode); err != nil {
		t.Fatal(err)
	}
}

func modeOf(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}
