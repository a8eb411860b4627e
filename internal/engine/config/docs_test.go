package config

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/wasmstream/wasmstream/internal/testutil/docsnippet"
)

const (
	repoRoot = "../../.."
	docsPath = repoRoot + "/docs/config.md"
)

// TestDocsSnippets loads every ```hcl snippet of docs/*.md and README.md, each written to a
// file of its own in a temporary directory and read with Load, so the documentation cannot drift
// from the code:
//
//   - A snippet is a whole pipeline unless it is marked as a fragment: "<!-- fragment -->" as
//     the last non-blank line before its fence (docsnippet.FragmentMark). A whole pipeline must
//     load without a single diagnostic, warnings included.
//   - A fragment holds some top-level settings and blocks of a pipeline. It is completed with
//     what the minimal example of docs/config.md (the shortest whole pipeline there) has and
//     the fragment does not (a block of the same kind and name, or a setting of the same name,
//     in the fragment replaces the example's), and must then load without a diagnostic.
//   - A pipeline named like an example of examples/ is that example's pipeline: each operator's
//     relative module path must exist in the example's directory, or be the file that the build
//     command of the example's README.md writes (the .wasm files are build products). Nothing
//     is built or run here; internal/engine's TestDocsFullExampleRuns runs the full example.
func TestDocsSnippets(t *testing.T) {
	minimal := minimalExample(t)
	count := 0
	for _, s := range docSnippets(t) {
		count++
		text := s.Text
		if s.Fragment {
			text = completeFragment(t, s, minimal)
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "pipeline.hcl")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		p, diags, _ := Load(path)
		if len(diags) > 0 {
			t.Errorf("%s: the snippet does not load cleanly:\n%v", s, inMarkdown(diags, s))
			continue
		}
		checkExampleModules(t, s, p, dir)
	}
	if count < 5 {
		t.Errorf("found %d hcl snippets in the docs, want at least the 5 of config.md, sinks.md and state-ttl.md", count)
	}
}

// inMarkdown moves diagnostics from the snippet's file to the Markdown file, where its line N is
// line s.Line+N (a fragment's completion lies past its end).
func inMarkdown(diags Diagnostics, s docsnippet.Snippet) Diagnostics {
	out := slices.Clone(diags)
	for i := range out {
		r := &out[i].Range
		r.Filename, r.Start.Line, r.End.Line = s.File, r.Start.Line+s.Line, r.End.Line+s.Line
	}
	return out
}

// docSnippets returns the hcl snippets of docs/*.md and README.md.
func docSnippets(t *testing.T) []docsnippet.Snippet {
	t.Helper()
	files, err := filepath.Glob(repoRoot + "/docs/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs found: %v", err)
	}
	var out []docsnippet.Snippet
	for _, f := range append(files, repoRoot+"/README.md") {
		s, err := docsnippet.Read(f, "hcl")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s...)
	}
	return out
}

// minimalExample is the shortest whole pipeline of docs/config.md, which completes fragments.
func minimalExample(t *testing.T) docsnippet.Snippet {
	t.Helper()
	snippets, err := docsnippet.Read(docsPath, "hcl")
	if err != nil {
		t.Fatal(err)
	}
	snippets = slices.DeleteFunc(snippets, func(s docsnippet.Snippet) bool { return s.Fragment })
	if len(snippets) < 2 {
		t.Fatalf("found %d whole pipelines in %s, want the full and the minimal example", len(snippets), docsPath)
	}
	return slices.MinFunc(snippets, func(a, b docsnippet.Snippet) int { return len(a.Text) - len(b.Text) })
}

// completeFragment returns the fragment followed by every top-level setting and block of base
// that the fragment does not declare. The fragment comes first so that its lines keep their
// numbers in diagnostics.
func completeFragment(t *testing.T, frag, base docsnippet.Snippet) string {
	t.Helper()
	fb, bb := syntaxBody(t, frag), syntaxBody(t, base)
	var kept []hcl.Range
	for name, a := range bb.Attributes {
		if fb.Attributes[name] == nil {
			kept = append(kept, a.SrcRange)
		}
	}
	for _, b := range bb.Blocks {
		if !slices.ContainsFunc(fb.Blocks, func(x *hclsyntax.Block) bool { return x.Type == b.Type && slices.Equal(x.Labels, b.Labels) }) {
			kept = append(kept, b.Range())
		}
	}
	slices.SortFunc(kept, func(a, b hcl.Range) int { return a.Start.Byte - b.Start.Byte })
	out := frag.Text
	for _, r := range kept {
		out += "\n" + base.Text[r.Start.Byte:r.End.Byte] + "\n"
	}
	return out
}

func syntaxBody(t *testing.T, s docsnippet.Snippet) *hclsyntax.Body {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(s.Text), s.String(), hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("%s: %v", s, diags)
	}
	return f.Body.(*hclsyntax.Body)
}

// checkExampleModules checks that the local modules of a pipeline named like an example exist in
// that example, dir being the directory the snippet was loaded from.
func checkExampleModules(t *testing.T, s docsnippet.Snippet, p *Pipeline, dir string) {
	t.Helper()
	example := filepath.Join(repoRoot, "examples", p.Name)
	if _, err := os.Stat(example); err != nil {
		return // not an example's pipeline: nothing to check its paths against
	}
	for _, op := range p.Operators {
		rel, err := filepath.Rel(dir, op.Module)
		if op.ModuleRef != "" || err != nil || strings.HasPrefix(rel, "..") {
			continue // a registry reference or an absolute path
		}
		if !exampleHasModule(example, p.Name, filepath.ToSlash(rel)) {
			t.Errorf("%s: operator %q: module %q is neither in %s nor built there by the command of its README.md", s, op.Name, rel, example)
		}
	}
}

// exampleHasModule reports whether the module at rel exists in the example, or is the file
// its README's build command writes from Go source beside it: the .wasm files are build products,
// absent from a fresh checkout.
func exampleHasModule(example, name, rel string) bool {
	if st, err := os.Stat(filepath.Join(example, rel)); err == nil && st.Mode().IsRegular() {
		return true
	}
	readme, err := os.ReadFile(filepath.Join(example, "README.md"))
	pkg := path.Join("examples", name, path.Dir(rel))
	gofiles, _ := filepath.Glob(filepath.Join(repoRoot, pkg, "*.go"))
	build := fmt.Sprintf("go build -buildmode=c-shared -o %s ./%s\n", path.Join("examples", name, rel), pkg)
	return err == nil && len(gofiles) > 0 && strings.Contains(string(readme), build)
}

// TestDocsCoverSchema checks that every setting and block the decoder accepts is documented.
func TestDocsCoverSchema(t *testing.T) {
	doc, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*hcl.BodySchema{fileSchema, serverSchema, logSchema, checkpointSchema, clusterSchema, streamSchema,
		sourceSchema, operatorSchema, keySchema, limitsSchema, sinkSchema, observeSchema, tlsSchema} {
		for _, a := range s.Attributes {
			if !strings.Contains(string(doc), "`"+a.Name+"`") {
				t.Errorf("setting %s is not documented", a.Name)
			}
		}
		for _, b := range s.Blocks {
			if !strings.Contains(string(doc), "`"+b.Type) {
				t.Errorf("block %s is not documented", b.Type)
			}
		}
	}
}
