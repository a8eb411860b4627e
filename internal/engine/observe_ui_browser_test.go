package engine

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// chromium is the headless browser the web UI test renders the page in:
// Debian's chromium package (scripts/install-toolchains.sh installs it).
func chromium(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		testutil.SkipUnlessCI(t, "chromium is not installed (scripts/install-toolchains.sh installs it): the web UI cannot be rendered")
	}
	return path
}

// browserBudget is the virtual time the page gets before Chromium dumps or
// shoots it: enough for the script's first fetches and renders (virtual
// time waits for the requests in flight).
const browserBudget = "6000"

// runChromium runs the headless browser on url with args and returns its
// standard output. Each run has a profile of its own, so that runs of
// other tests beside this one do not share a locked profile.
func runChromium(t *testing.T, browser, url string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a bound for a loaded machine
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=" + browserBudget}
	cmd := exec.CommandContext(ctx, browser, append(append(base, args...), url)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

// renderedDOM is the page's DOM after its script ran.
type renderedDOM string

func renderPage(t *testing.T, browser, url string) renderedDOM {
	t.Helper()
	return renderedDOM(runChromium(t, browser, url, "--dump-dom"))
}

// screenshot saves a picture of the page at url as a PNG in path.
func screenshot(t *testing.T, browser, url, path string) {
	t.Helper()
	dir := t.TempDir() // Chromium writes the file relative to its working directory
	shot := filepath.Join(dir, "page.png")
	runChromium(t, browser, url, "--hide-scrollbars", "--window-size=1280,900", "--screenshot="+shot)
	png, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("chromium wrote no screenshot: %v", err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("the screenshot %s is not a PNG", shot)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

var dataValue = regexp.MustCompile(`\bdata-value="([^"]*)"`)

// value returns the data-value of the element with id, and its text up
// to its first child element; ok is false when there is no such element.
func (d renderedDOM) value(id string) (value, text string, ok bool) {
	tag := regexp.MustCompile(`<[a-z]+\b[^>]*\bid="` + regexp.QuoteMeta(id) + `"[^>]*>([^<]*)`).FindStringSubmatch(string(d))
	if tag == nil {
		return "", "", false
	}
	m := dataValue.FindStringSubmatch(tag[0][:len(tag[0])-len(tag[1])])
	if m == nil {
		return "", tag[1], true
	}
	return m[1], tag[1], true
}

// count is how many times attr="value" occurs in the DOM.
func (d renderedDOM) count(attr, value string) int {
	return strings.Count(string(d), attr+`="`+value+`"`)
}
