package natsio

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
)

func TestServerLogLevelsAndFatal(t *testing.T) {
	var buf bytes.Buffer
	l := newServerLog(hclog.New(&hclog.LoggerOptions{Output: &buf, Level: hclog.Debug}))
	l.Noticef("notice %d", 1)
	l.Warnf("warn %d", 2)
	l.Fatalf("listen failed on %s", ":4222")
	l.Fatalf("second fatal")
	out := buf.String()
	for _, want := range []string{"[DEBUG] nats-server: notice 1", "[WARN]  nats-server: warn 2", "[ERROR] nats-server: listen failed on :4222"} {
		if !strings.Contains(out, want) {
			t.Errorf("log output lacks %q:\n%s", want, out)
		}
	}
	if got := l.fatalLine(); got != "listen failed on :4222" {
		t.Fatalf("fatalLine() = %q, want the first fatal line", got)
	}
}
