package main

import (
	"bytes"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

func TestBuildVersion(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	tests := []struct {
		name    string
		ldflags string
		info    *debug.BuildInfo
		want    builtFrom
	}{
		{"no build info", "dev", nil, builtFrom{Version: "dev"}},
		{"go build in a clone", "dev",
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", "abc123", "vcs.time", "2026-12-01T10:00:00Z", "vcs.modified", "false")},
			builtFrom{Version: "dev", Commit: "abc123", Time: "2026-12-01T10:00:00Z"}},
		{"modified tree", "dev",
			&debug.BuildInfo{Settings: vcs("vcs.revision", "abc123", "vcs.modified", "true")},
			builtFrom{Version: "dev", Commit: "abc123+dirty"}},
		{"go install of a tag", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, builtFrom{Version: "v1.2.3"}},
		{"ldflags win", "v1.2.3-4-gabc123-dirty",
			&debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}, Settings: vcs("vcs.revision", "abc123")},
			builtFrom{Version: "v1.2.3-4-gabc123-dirty", Commit: "abc123"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := buildVersion(tt.ldflags, tt.info); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// A binary built in this clone prints the commit it was built from, and
// the version given with -ldflags.
func TestVersionPrintsCommit(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("no git clone to build from: %v", err)
	}
	bin := t.TempDir() + "/wasmstream"
	build := exec.Command("go", "build", "-buildvcs=true", "-ldflags", "-X main.version=v9.9.9-test", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, "version")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("wasmstream version: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{"wasmstream v9.9.9-test\n", "commit " + strings.TrimSpace(string(head)), "ABI version ", "state format version "} {
		if !strings.Contains(got, want) {
			t.Errorf("wasmstream version printed\n%s\nwithout %q", got, want)
		}
	}
}
