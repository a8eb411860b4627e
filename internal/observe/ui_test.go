package observe

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestPipelineAPIAndUI: with a Pipeline view the server answers
// /api/pipeline with it as JSON and serves the page and its files; without
// one it serves neither.
func TestPipelineAPIAndUI(t *testing.T) {
	view := func(context.Context) any { return map[string]any{"pipeline": "sums", "state": "ready"} }
	srv, err := Start(Settings{Listen: "127.0.0.1:0", Gatherer: NewRegistry(), Ready: func() string { return "" }, Pipeline: view})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	code, body := get(t, srv.URL()+"/api/pipeline")
	var got map[string]any
	if code != http.StatusOK || json.Unmarshal([]byte(body), &got) != nil || got["pipeline"] != "sums" {
		t.Errorf("/api/pipeline: %d %q, want 200 and the view as JSON", code, body)
	}
	for path, want := range map[string]string{"/": `<script src="/ui/ui.js"`, "/ui/ui.js": "/api/pipeline", "/ui/ui.css": "#graph"} {
		if code, body := get(t, srv.URL()+path); code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("%s: %d, want 200 with %q", path, code, want)
		}
	}
	if code, _ := get(t, srv.URL()+"/no-such-page"); code != http.StatusNotFound {
		t.Errorf("/no-such-page: %d, want 404", code)
	}

	bare, err := Start(Settings{Listen: "127.0.0.1:0", Gatherer: NewRegistry(), Ready: func() string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	for _, path := range []string{"/", "/api/pipeline"} {
		if code, _ := get(t, bare.URL()+path); code != http.StatusNotFound {
			t.Errorf("without a Pipeline view %s: %d, want 404", path, code)
		}
	}
}

// absoluteURL finds a URL the page would load from elsewhere; the SVG
// namespace is a name, never fetched.
var absoluteURL = regexp.MustCompile(`(https?:)?//[a-z0-9.-]+\.[a-z]{2,}`)

// TestUILoadsNothingFromElsewhere: the UI works where only the listener is
// reachable, so no file of it names another host (a CDN, a web font).
func TestUILoadsNothingFromElsewhere(t *testing.T) {
	err := fs.WalkDir(uiFiles, "ui", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		text, err := fs.ReadFile(uiFiles, path)
		if err != nil {
			return err
		}
		for _, u := range absoluteURL.FindAllString(string(text), -1) {
			if u != "http://www.w3.org" {
				t.Errorf("%s loads %s: the UI must load nothing but the listener's files", path, u)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
