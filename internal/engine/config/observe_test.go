package config

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// observeBase is a valid pipeline on the embedded server without an observe block, to which
// tests append one.
const observeBase = `name = "p"
stream "S" {
  subjects = ["in.>", "out.>"]
}
source "in" {
  stream  = "S"
  subject = "in.>"
}
operator "o" {
  module = "o.wasm"
  inputs = ["in"]
  key {
    json_field = "id"
  }
  outputs = { out = "out" }
}
sink "out" {
  subject = "out.x"
}
`

// TestObserveDecode: no block, an empty block and an empty listen leave the endpoint off; a
// loopback address is taken quietly; an address other machines can reach is taken with one
// warning that says so.
func TestObserveDecode(t *testing.T) {
	for _, tc := range []struct {
		block, want string
		warn        bool
	}{
		{"", "", false},
		{"observe {}", "", false},
		{`observe { listen = "" }`, "", false},
		{`observe { listen = null }`, "", false},
		{`observe { listen = "127.0.0.1:9464" }`, "127.0.0.1:9464", false},
		{`observe { listen = " 127.0.0.1:9464 " }`, "127.0.0.1:9464", false},
		{`observe { listen = "127.0.0.2:0" }`, "127.0.0.2:0", false},
		{`observe { listen = "localhost:9464" }`, "localhost:9464", false},
		{`observe { listen = "[::1]:9464" }`, "[::1]:9464", false},
		{`observe { listen = "0.0.0.0:9464" }`, "0.0.0.0:9464", true},
		{`observe { listen = ":9464" }`, ":9464", true},
		{`observe { listen = "[::]:9464" }`, "[::]:9464", true},
		{`observe { listen = "10.1.2.3:9464" }`, "10.1.2.3:9464", true},
		{`observe { listen = "metrics.example:9464" }`, "metrics.example:9464", true},
	} {
		p, diags, err := Parse([]byte(observeBase+tc.block+"\n"), "/cfg/p.hcl")
		if err != nil {
			t.Errorf("%s: %v", tc.block, err)
			continue
		}
		if p.Observe.Listen != tc.want || p.Observe.Enabled() != (tc.want != "") {
			t.Errorf("%s: listen %q (enabled %v), want %q", tc.block, p.Observe.Listen, p.Observe.Enabled(), tc.want)
		}
		warnings := diags.Warnings()
		if tc.warn != (len(warnings) == 1) || len(warnings) > 1 {
			t.Errorf("%s: warnings %v, want a warning: %v", tc.block, warnings, tc.warn)
		}
		if tc.warn && !strings.Contains(warnings[0].String(), "observe: listen: ") ||
			tc.warn && !strings.Contains(warnings[0].String(), "reachable from other machines") {
			t.Errorf("%s: warning %q does not name observe.listen and the exposure", tc.block, warnings[0])
		}
	}
}

// TestObserveErrors: an address the endpoint could not listen on is an error at listen's value
// that names the setting and shows the form to write.
func TestObserveErrors(t *testing.T) {
	for _, tc := range []struct{ value, want string }{
		{`"9464"`, "is not host:port"},
		{`"127.0.0.1"`, "is not host:port"},
		{`"127.0.0.1:"`, "no port number"},
		{`"127.0.0.1:http"`, "no port number"},
		{`"127.0.0.1:65536"`, "no port number"},
		{`"127.0.0.1:-1"`, "no port number"},
		{`"http://127.0.0.1:9464"`, "is not host:port"},
		{`"my host:9464"`, "neither an IP address nor a host name"},
		{`9464`, `"9464" is not host:port`},
		{`["127.0.0.1:9464"]`, "must be a string"},
	} {
		src := observeBase + "observe {\n  listen = " + tc.value + "\n}\n"
		_, diags, err := Parse([]byte(src), "p.hcl")
		if len(diags) != 1 || !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), "p.hcl:21:") ||
			!strings.Contains(err.Error(), "observe: listen: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("listen = %s: got %v, want one error at line 21 about observe.listen containing %q", tc.value, diags, tc.want)
		}
	}
}

// TestObserveOnce: a second observe block is refused like any repeated block.
func TestObserveOnce(t *testing.T) {
	src := observeBase + "observe {}\nobserve {}\n"
	if _, _, err := Parse([]byte(src), "p.hcl"); err == nil || !strings.Contains(err.Error(), "only one observe block") {
		t.Errorf("two observe blocks: %v, want an error", err)
	}
}

// TestObserveString: the effective config prints the endpoint when it is on and reads back
// the same; it leaves the block out when it is off.
func TestObserveString(t *testing.T) {
	p, _, err := Parse([]byte(observeBase+`observe { listen = "127.0.0.1:9464" }`+"\n"), "/cfg/p.hcl")
	if err != nil {
		t.Fatal(err)
	}
	text := p.String()
	if !strings.Contains(text, "observe {\n  listen = \"127.0.0.1:9464\"\n}") {
		t.Errorf("printed config has no observe block:\n%s", text)
	}
	back, _, err := Parse([]byte(text), "/cfg/p.hcl")
	if err != nil || back.Observe.Listen != p.Observe.Listen {
		t.Errorf("read back: %v, listen %q", err, back.Observe.Listen)
	}
	off, _, _ := Parse([]byte(observeBase), "/cfg/p.hcl")
	if strings.Contains(off.String(), "observe") {
		t.Errorf("printed config without an endpoint has an observe block:\n%s", off.String())
	}
}

// TestObserveDocumented: docs/config.md documents the block and its setting (TestDocsCoverSchema
// covers the other blocks).
func TestObserveDocumented(t *testing.T) {
	doc, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### `observe`", "`listen`", "docs/metrics.md"} {
		if !strings.Contains(string(doc), want) && !strings.Contains(string(doc), strings.TrimPrefix(want, "docs/")) {
			t.Errorf("docs/config.md does not mention %s", want)
		}
	}
}
