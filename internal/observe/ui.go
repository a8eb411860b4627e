package observe

import (
	"context"
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"
	"time"
)

// PipelineView returns the JSON-encodable view of the pipeline that
// /api/pipeline answers. It is called on every request, from the HTTP
// server's goroutines: it must be safe for concurrent use, and it should
// give up when ctx ends.
type PipelineView func(ctx context.Context) any

// viewTimeout bounds one /api/pipeline request: the view asks NATS for
// backlogs and dead letters, and a page must get an answer while NATS is
// away.
const viewTimeout = 3 * time.Second

// pipelineAPI answers GET /api/pipeline with view's answer as JSON.
func pipelineAPI(view PipelineView) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), viewTimeout)
		defer cancel()
		body, err := json.Marshal(view(ctx))
		if err != nil {
			http.Error(w, "encode the pipeline view: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(body)
	}
}

// uiFiles are the web UI: one page, its style sheet and its script, with
// nothing loaded from elsewhere (no CDN, no web fonts), so the UI works
// where the listener is the only thing reachable.
//
//go:embed ui
var uiFiles embed.FS

// serveUI serves the page at / and its files under /ui/.
func serveUI(mux *http.ServeMux) {
	files, err := fs.Sub(uiFiles, "ui")
	if err != nil {
		panic(err) // the embedded tree always has ui/
	}
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		http.ServeFileFS(w, r, files, "index.html")
	})
	mux.Handle("GET /ui/", http.StripPrefix("/ui/", http.FileServerFS(files)))
}
