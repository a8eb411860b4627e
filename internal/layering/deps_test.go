package layering

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// pkg is one package of a dependency closure, as go list reports it.
type pkg struct {
	standard bool
	dir      string
	imports  []string
}

// graph is the dependency closure of a pattern: its roots (the pattern's
// own packages, in go list order) and every package they reach.
type graph struct {
	roots []string
	pkgs  map[string]pkg
	order []string // go list order: dependencies before their importers
}

// violation is one forbidden dependency and an import chain, from a root,
// that brings it in.
type violation struct {
	forbidden string
	chain     []string
}

// listFormat is one line per package: path, standard, root, dir, imports.
const listFormat = `{{.ImportPath}}{{"\t"}}{{.Standard}}{{"\t"}}{{not .DepOnly}}{{"\t"}}{{.Dir}}{{"\t"}}{{join .Imports " "}}`

// listDeps runs go list -deps on pattern from the module root. A pattern
// that matches nothing is a failure, not a pass.
func listDeps(t *testing.T, pattern string) graph {
	t.Helper()
	cmd := exec.Command(goTool(t), "list", "-deps", "-test=false", "-f", listFormat, pattern)
	cmd.Dir = moduleRoot(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pattern, err, stderr.Bytes())
	}
	g := graph{pkgs: map[string]pkg{}}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			t.Fatalf("go list -deps %s: unexpected line %q", pattern, line)
		}
		g.pkgs[f[0]] = pkg{standard: f[1] == "true", dir: f[3], imports: strings.Fields(f[4])}
		g.order = append(g.order, f[0])
		if f[2] == "true" {
			g.roots = append(g.roots, f[0])
		}
	}
	if len(g.roots) == 0 {
		t.Fatalf("go list -deps %s: no package matched\n%s", pattern, stderr.Bytes())
	}
	return g
}

// violations returns what r forbids in g: one chain per forbidden entry
// (per package outside the standard library for stdlibOnly).
func (g graph) violations(r rule) []violation {
	parent := g.walk()
	var out []violation
	if r.stdlibOnly {
		out = append(out, g.outsideStdlib(parent)...)
	}
	for _, f := range r.forbid {
		if p, ok := g.firstReached(parent, func(p string) bool { return within(p, f) }); ok {
			out = append(out, violation{forbidden: f, chain: g.chain(parent, p)})
		}
	}
	for _, f := range r.forbidStdlib {
		if v, ok := g.stdlibImport(parent, f); ok {
			out = append(out, v)
		}
	}
	return out
}

// walk is a breadth-first search from the roots; it returns each reached
// package's importer on a shortest chain ("" for a root).
func (g graph) walk() map[string]string {
	parent := map[string]string{}
	queue := append([]string(nil), g.roots...)
	for _, r := range g.roots {
		parent[r] = ""
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, imp := range g.pkgs[p].imports {
			if _, seen := parent[imp]; seen {
				continue
			}
			if _, listed := g.pkgs[imp]; !listed {
				continue // "C" and the like
			}
			parent[imp] = p
			queue = append(queue, imp)
		}
	}
	return parent
}

// chain is the import chain from a root to p.
func (g graph) chain(parent map[string]string, p string) []string {
	var rev []string
	for ; p != ""; p = parent[p] {
		rev = append(rev, p)
	}
	out := make([]string, len(rev))
	for i, p := range rev {
		out[len(rev)-1-i] = p
	}
	return out
}

// firstReached returns the reached package nearest a root (ties in go list
// order) for which match holds.
func (g graph) firstReached(parent map[string]string, match func(string) bool) (string, bool) {
	best, depth := "", -1
	for _, p := range g.order {
		if _, reached := parent[p]; !reached || !match(p) {
			continue
		}
		if d := len(g.chain(parent, p)); depth < 0 || d < depth {
			best, depth = p, d
		}
	}
	return best, depth >= 0
}

// outsideStdlib returns the non-standard packages a root imports that are
// not roots themselves: where the closure leaves the standard library
// (which never imports anything else).
func (g graph) outsideStdlib(parent map[string]string) []violation {
	var out []violation
	for _, p := range g.order {
		par, reached := parent[p]
		if !reached || par == "" || g.pkgs[p].standard || !g.isRoot(par) {
			continue
		}
		out = append(out, violation{forbidden: "packages outside the standard library", chain: g.chain(parent, p)})
	}
	return out
}

// stdlibImport finds a non-standard package of the closure that imports
// the standard-library package std or one below it.
func (g graph) stdlibImport(parent map[string]string, std string) (violation, bool) {
	var best []string
	for _, p := range g.order {
		if _, reached := parent[p]; !reached || g.pkgs[p].standard {
			continue
		}
		for _, imp := range g.pkgs[p].imports {
			if !within(imp, std) {
				continue
			}
			if c := append(g.chain(parent, p), imp); best == nil || len(c) < len(best) {
				best = c
			}
		}
	}
	return violation{forbidden: std, chain: best}, best != nil
}

func (g graph) isRoot(p string) bool {
	for _, r := range g.roots {
		if r == p {
			return true
		}
	}
	return false
}

// within reports whether import path p is prefix or below it, on whole
// path elements ("net" holds "net/http", not "netip").
func within(p, prefix string) bool {
	return p == prefix || strings.HasPrefix(p, prefix+"/")
}

// goTool is the go command: the one on PATH (go test puts its own GOROOT's
// bin first), else the one of the GOROOT this test was built with.
func goTool(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := exec.LookPath(p); err != nil {
		t.Fatalf("no go command on PATH or in %s: %v", runtime.GOROOT(), err)
	}
	return p
}

// moduleRoot is the directory of the go.mod holding this package.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(goTool(t), "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(out))
	if err != nil || gomod == "" || gomod == "/dev/null" {
		t.Fatalf("go env GOMOD = %q, %v; run the test inside the module", gomod, err)
	}
	return filepath.Dir(gomod)
}
