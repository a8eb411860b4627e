package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPrebuiltModules(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "build", "rust"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ModulePath("rust", "dedup")), []byte("\x00asm"), 0o644); err != nil {
		t.Fatal(err)
	}
	found, missing, err := PrebuiltModules(dir, "rust")
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found["dedup"] == nil || len(missing) != len(Operators)-1 {
		t.Fatalf("found %v, missing %v", found, missing)
	}
	msg := MissingMessage("rust", missing)
	if !strings.Contains(msg, "scripts/build-rust.sh") || !strings.Contains(msg, "counter.wasm") {
		t.Errorf("message does not name the script and the modules: %s", msg)
	}
}
