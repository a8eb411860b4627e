package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// Two spellings of one data dir (through a symlink, before and after the
// directory exists) name one embedded server; another data dir another.
func TestEmbeddedServerNameFollowsTheDataDir(t *testing.T) {
	root := t.TempDir()
	realDir := filepath.Join(root, "realDir")
	link := filepath.Join(root, "link")
	if err := os.Mkdir(realDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(realDir, link); err != nil {
		t.Fatal(err)
	}
	before := dataDirHash(filepath.Join(link, "data"))
	if err := os.Mkdir(filepath.Join(realDir, "data"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Join(link, "data"), filepath.Join(realDir, "data"), filepath.Join(realDir, "x", "..", "data")} {
		if got := dataDirHash(dir); got != before {
			t.Errorf("%s: hash %s, want %s (the same directory)", dir, got, before)
		}
	}
	if dataDirHash(filepath.Join(realDir, "other")) == before {
		t.Error("another data dir has the same hash")
	}
	cfg := &config.Pipeline{Name: "risk-2", DataDir: filepath.Join(realDir, "data")}
	name := embeddedServerName(cfg)
	if p, h, ok := parseEmbeddedName(name); !ok || p != "risk-2" || h != before {
		t.Fatalf("parse %q: %q %q %v", name, p, h, ok)
	}
}

func TestCheckServerOwner(t *testing.T) {
	cfg := &config.Pipeline{Name: "b", DataDir: "/srv/b/data"}
	other := &config.Pipeline{Name: "a", DataDir: "/srv/a/data"}
	sameName := &config.Pipeline{Name: "b", DataDir: "/srv/old/data"}
	for _, tc := range []struct {
		server string
		want   []string // nil: accepted
	}{
		{embeddedServerName(cfg), nil},
		{embeddedServerName(other), []string{`embedded server of pipeline "a" (data dir hash ` + dataDirHash(other.DataDir), `stop pipeline "a"`}},
		{embeddedServerName(sameName), []string{`pipeline "b" on another data dir (hash ` + dataDirHash(sameName.DataDir)}},
		{"wasmstream-embedded", []string{`a NATS server named "wasmstream-embedded"`, "older wasmstream", "server.url"}},
		{"nats-1", []string{`named "nats-1"`}},
		{"wasmstream-a-notahexhash!", []string{`named "wasmstream-a-notahexhash!"`}},
		{"", []string{`named ""`}},
	} {
		err := checkServerOwner(cfg, "127.0.0.1:4222", tc.server)
		if tc.want == nil {
			if err != nil {
				t.Errorf("%q: %v, want accepted", tc.server, err)
			}
			continue
		}
		if !errors.Is(err, ErrForeignServer) {
			t.Errorf("%q: %v, want ErrForeignServer", tc.server, err)
			continue
		}
		for _, want := range append(tc.want, "127.0.0.1:4222", `pipeline "b" (data dir /srv/b/data`, "server.embedded_port") {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q: %q lacks %q", tc.server, err, want)
			}
		}
	}
}
