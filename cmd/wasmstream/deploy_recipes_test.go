package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// The recipes of docs/deploy.md are files under docs/deploy/. These tests
// keep them true to the CLI: their command lines parse as the CLI parses
// them, their restart policy follows the exit code table, and the
// Dockerfile builds the binary as scripts/demo.sh does.

// unitFile is the [Service] settings of a systemd unit, each key with
// its values in order.
type unitFile map[string][]string

func readUnit(t *testing.T, name string) unitFile {
	t.Helper()
	f, err := os.Open(filepath.Join(testutil.ModuleRoot(t), "docs", "deploy", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u, section := unitFile{}, ""
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			section = line
		case section == "[Service]":
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("%s: not a setting: %q", name, line)
			}
			u[k] = append(u[k], v)
		}
	}
	return u
}

// one returns the single value of key.
func (u unitFile) one(t *testing.T, key string) string {
	t.Helper()
	if len(u[key]) != 1 {
		t.Fatalf("%s= is set %d times, want once", key, len(u[key]))
	}
	return u[key][0]
}

// checkCommandLine parses args (without the binary) as the CLI does:
// the verb must exist and run, its flags and their values must parse,
// its arguments fit and no required flag be missing.
func checkCommandLine(t *testing.T, what string, args []string) {
	t.Helper()
	root := newCLI()
	cmd, rest, err := root.Find(args)
	if err != nil || cmd == root || !cmd.Runnable() {
		t.Fatalf("%s: %q names no command of the CLI (%v)", what, args, err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Fatalf("%s: %q: %v", what, args, err)
	}
	if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
		t.Fatalf("%s: %q: %v", what, args, err)
	}
	if err := cmd.ValidateRequiredFlags(); err != nil {
		t.Fatalf("%s: %q: %v", what, args, err)
	}
	if f := cmd.Flag("log-format"); f != nil && !slices.Contains([]string{"", "text", "json"}, f.Value.String()) {
		t.Fatalf("%s: --log-format %q: want text or json", what, f.Value.String())
	}
}

// systemdSpecifiers stands in for what systemd substitutes, %i (the
// instance) being a pipeline name or a worker id.
var systemdSpecifiers = strings.NewReplacer("%i", "w1", "%I", "w1", "%%", "%")

func TestSystemdUnitsRunTheCLI(t *testing.T) {
	for _, tt := range []struct{ unit, verb string }{
		{"wasmstream-run@.service", "run"},
		{"wasmstream-worker@.service", "worker"},
	} {
		t.Run(tt.unit, func(t *testing.T) {
			u := readUnit(t, tt.unit)
			argv := strings.Fields(systemdSpecifiers.Replace(u.one(t, "ExecStart")))
			if len(argv) < 3 || !filepath.IsAbs(argv[0]) || filepath.Base(argv[0]) != "wasmstream" || argv[1] != tt.verb {
				t.Fatalf("ExecStart=%s: want /ABSOLUTE/wasmstream %s ...", u.one(t, "ExecStart"), tt.verb)
			}
			if !strings.HasSuffix(argv[2], ".hcl") {
				t.Errorf("ExecStart: the pipeline file %q does not end in .hcl", argv[2])
			}
			checkCommandLine(t, tt.unit, argv[1:])
			checkServiceSettings(t, u)
		})
	}
}

// checkServiceSettings checks what docs/deploy.md says every unit does.
func checkServiceSettings(t *testing.T, u unitFile) {
	t.Helper()
	if user := u.one(t, "User"); user == "" || user == "root" || user == "0" {
		t.Errorf("User=%s: the service must not run as root", user)
	}
	if mode := u.one(t, "StateDirectoryMode"); mode != "0700" {
		t.Errorf("StateDirectoryMode=%s: the data dir must be private (0700, docs/security.md)", mode)
	}
	if sig := u.one(t, "KillSignal"); sig != "SIGTERM" {
		t.Errorf("KillSignal=%s, want SIGTERM (a graceful stop)", sig)
	}
	secs, err := strconv.Atoi(u.one(t, "TimeoutStopSec"))
	if err != nil || time.Duration(secs)*time.Second < time.Minute {
		t.Errorf("TimeoutStopSec=%s: want at least 60 seconds for the final checkpoint", u.one(t, "TimeoutStopSec"))
	}
	if r := u.one(t, "Restart"); r != "on-failure" {
		t.Errorf("Restart=%s, want on-failure", r)
	}
	// The codes a restart cannot cure: the same command line, file and
	// checkpoint fail the same way at every start.
	want := []string{strconv.Itoa(exitUsage), strconv.Itoa(exitInvalidPipeline), strconv.Itoa(exitCheckpoint)}
	if got := strings.Fields(u.one(t, "RestartPreventExitStatus")); !slices.Equal(got, want) {
		t.Errorf("RestartPreventExitStatus=%s, want %s", strings.Join(got, " "), strings.Join(want, " "))
	}
	if !strings.Contains(u.one(t, "StateDirectory"), "wasmstream/") {
		t.Errorf("StateDirectory=%s: want a data dir of its own under /var/lib/wasmstream", u.one(t, "StateDirectory"))
	}
}

// dockerfile is the instructions of a Dockerfile, continuation lines
// joined, in order.
func dockerfile(t *testing.T) [][2]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), "docs", "deploy", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]string
	var cur strings.Builder
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		more := strings.HasSuffix(line, "\\")
		cur.WriteString(strings.TrimSuffix(line, "\\") + " ")
		if more {
			continue
		}
		op, arg, _ := strings.Cut(strings.TrimSpace(cur.String()), " ")
		out = append(out, [2]string{strings.ToUpper(op), strings.TrimSpace(arg)})
		cur.Reset()
	}
	return out
}

func TestDockerfileRunsTheCLI(t *testing.T) {
	var entry, cmd []string
	var user, stop string
	for _, in := range dockerfile(t) {
		switch in[0] {
		case "ENTRYPOINT", "CMD":
			var argv []string
			if err := json.Unmarshal([]byte(in[1]), &argv); err != nil {
				t.Fatalf("%s %s: want the exec form (a JSON array), so that wasmstream is PID 1 and gets the signals", in[0], in[1])
			}
			if in[0] == "ENTRYPOINT" {
				entry = argv
			} else {
				cmd = argv
			}
		case "USER":
			user = in[1]
		case "STOPSIGNAL":
			stop = in[1]
		}
	}
	if len(entry) != 1 || filepath.Base(entry[0]) != "wasmstream" {
		t.Fatalf("ENTRYPOINT %q: want the wasmstream binary alone", entry)
	}
	checkCommandLine(t, "Dockerfile CMD", cmd)
	if user == "" || user == "root" || user == "0" {
		t.Errorf("USER %q: the container must not run as root", user)
	}
	if stop != "SIGTERM" {
		t.Errorf("STOPSIGNAL %q, want SIGTERM", stop)
	}
}

// goBuildOfCLI finds the `go build` of ./cmd/wasmstream in text.
var goBuildOfCLI = regexp.MustCompile(`go build [^\n&;]*\./cmd/wasmstream`)

// The parts of a build command that may differ: the version's value,
// the output path and -trimpath.
var (
	versionFlag = regexp.MustCompile(`-ldflags "-X main\.version=[^"]*"`)
	outputFlag  = regexp.MustCompile(`-o \S+`)
)

// buildShape is what a build command of the CLI must agree on: the
// package and the -X flag that sets the version `wasmstream version`
// prints (version.go).
func buildShape(t *testing.T, what, text string) string {
	t.Helper()
	m := goBuildOfCLI.FindString(text)
	if m == "" {
		t.Fatalf("%s has no go build of ./cmd/wasmstream", what)
	}
	m = versionFlag.ReplaceAllString(m, "-ldflags -X=main.version=VERSION")
	m = outputFlag.ReplaceAllString(m, "")
	m = strings.ReplaceAll(m, "-trimpath", "")
	return strings.Join(strings.Fields(m), " ")
}

func TestDockerfileBuildsAsTheScriptsDo(t *testing.T) {
	var build string
	for _, in := range dockerfile(t) {
		if in[0] == "RUN" && strings.Contains(in[1], "go build") {
			build = in[1]
		}
	}
	if !strings.HasPrefix(build, "CGO_ENABLED=0 ") {
		t.Errorf("the Dockerfile's build %q: want CGO_ENABLED=0, a static binary for the Debian stage", build)
	}
	_ = version // the variable the -X flag sets
	root := testutil.ModuleRoot(t)
	want := buildShape(t, "the Dockerfile", build)
	if want != "go build -ldflags -X=main.version=VERSION ./cmd/wasmstream" {
		t.Errorf("the Dockerfile builds with %q", want)
	}
	for _, rel := range []string{"scripts/demo.sh", "README.md"} {
		text, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		if rel == "README.md" && !goBuildOfCLI.Match(text) {
			continue // the README builds the CLI through scripts/demo.sh
		}
		if got := buildShape(t, rel, string(text)); got != want {
			t.Errorf("%s builds the CLI with %q, the Dockerfile with %q", rel, got, want)
		}
	}
}
