package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/plugins"
)

// push runs ws_init before it stores a module: one that emits there is
// refused and stores nothing; one that needs a config is refused with the
// empty config, with the flag that gives one, and stored with that flag.
func TestOperatorPushRunsWSInit(t *testing.T) {
	srv := []string{"--server", natsServer(t)}
	_, err := execCLI(t, append([]string{"operator", "push", pluginFixture(t, "initemit.wasm"), "--name", "hostile"}, srv...)...)
	if !errors.Is(err, plugins.ErrInit) || !strings.Contains(err.Error(), "emit") {
		t.Fatalf("push of a module that emits in ws_init: %v, want ErrInit naming emit", err)
	}
	if out := mustExecCLI(t, append([]string{"operator", "list"}, srv...)...); !strings.Contains(out, "no operators") {
		t.Fatalf("a refused push stored something:\n%s", out)
	}

	needs := pluginFixture(t, "needsconfig.wasm")
	_, err = execCLI(t, append([]string{"operator", "push", needs, "--name", "limits"}, srv...)...)
	if !errors.Is(err, plugins.ErrInit) || !strings.Contains(err.Error(), "--init-config FILE") {
		t.Fatalf("push with the empty config: %v, want ErrInit suggesting --init-config", err)
	}
	cfg := filepath.Join(t.TempDir(), "limits.json")
	if err := os.WriteFile(cfg, []byte(`{"max":5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustExecCLI(t, append([]string{"operator", "push", needs, "--name", "limits", "--init-config", cfg}, srv...)...)
	if !strings.Contains(out, "pushed limits@") {
		t.Fatalf("push with --init-config:\n%s", out)
	}
	_, err = execCLI(t, append([]string{"operator", "push", needs, "--name", "limits", "--init-config", cfg + ".missing"}, srv...)...)
	if err == nil || !strings.Contains(err.Error(), "--init-config") {
		t.Fatalf("a missing --init-config file: %v", err)
	}
}
