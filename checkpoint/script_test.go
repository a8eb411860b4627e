package checkpoint

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata scripts")

// scriptCase is one command of a testdata script and its expected output.
// Scripts follow the Pebble/etcd datadriven layout:
//
//	command arg key=value
//	----
//	expected output lines
//	<blank line>
//
// Lines starting with # outside a case are comments.
type scriptCase struct {
	line     int // 1-based line of the command
	source   string
	cmd      string
	args     []string
	kv       map[string]string
	expected string
	// outStart and outEnd delimit the expected output lines (0-based, end
	// exclusive) so that -rewrite keeps comments and spacing.
	outStart, outEnd int
}

func parseScript(t *testing.T, path string) []scriptCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var cases []scriptCase
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := scriptCase{line: i + 1, source: line, kv: map[string]string{}}
		fields := strings.Fields(line)
		c.cmd = fields[0]
		for _, f := range fields[1:] {
			if k, v, ok := strings.Cut(f, "="); ok {
				c.kv[k] = v
			} else {
				c.args = append(c.args, f)
			}
		}
		if i+1 >= len(lines) || strings.TrimSpace(lines[i+1]) != "----" {
			t.Fatalf("%s:%d: want ---- after command", path, i+1)
		}
		i += 2
		c.outStart = i
		for i < len(lines) && strings.TrimSpace(lines[i]) != "" {
			i++
		}
		c.outEnd = i
		c.expected = strings.Join(lines[c.outStart:c.outEnd], "\n")
		cases = append(cases, c)
	}
	return cases
}

// rewriteScript replaces each case's expected output with actual.
func rewriteScript(path string, cases []scriptCase, actual []string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Split(string(data), "\n")
	var out []string
	prev := 0
	for k, c := range cases {
		out = append(out, lines[prev:c.outStart]...)
		out = append(out, strings.Split(actual[k], "\n")...)
		prev = c.outEnd
	}
	out = append(out, lines[prev:]...)
	return os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o644)
}

// runScripts runs every script under dir with run, compares or rewrites.
func runScripts(t *testing.T, dir string, run func(t *testing.T, c scriptCase) string) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scripts in %s: %v", dir, err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			cases := parseScript(t, path)
			actual := make([]string, len(cases))
			for k, c := range cases {
				actual[k] = strings.TrimRight(run(t, c), "\n")
				if !*rewrite && actual[k] != c.expected {
					t.Errorf("%s:%d: %s\ngot:\n%s\nwant:\n%s", path, c.line, c.source, actual[k], c.expected)
				}
			}
			if *rewrite {
				if err := rewriteScript(path, cases, actual); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
