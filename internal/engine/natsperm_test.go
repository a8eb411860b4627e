package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats-server/v2/server"

	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/internal/testutil/docsnippet"
)

// violationLog records the permission violations a server logs.
type violationLog struct {
	mu   sync.Mutex
	seen []string
}

// note keeps a violation of a publish ("Permissions Violation") or of a
// subscribe ("Subscription Violation"), as nats-server words them.
func (l *violationLog) note(format string, v ...any) {
	if msg := fmt.Sprintf(format, v...); strings.Contains(msg, "Permissions Violation") || strings.Contains(msg, "Subscription Violation") {
		l.mu.Lock()
		l.seen = append(l.seen, msg)
		l.mu.Unlock()
	}
}

func (l *violationLog) Noticef(format string, v ...any) { l.note(format, v...) }
func (l *violationLog) Warnf(format string, v ...any)   { l.note(format, v...) }
func (l *violationLog) Fatalf(format string, v ...any)  { l.note(format, v...) }
func (l *violationLog) Errorf(format string, v ...any)  { l.note(format, v...) }
func (l *violationLog) Debugf(format string, v ...any)  { l.note(format, v...) }
func (l *violationLog) Tracef(format string, v ...any)  { l.note(format, v...) }

func (l *violationLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen...)
}

// documentedUserServer runs a server whose users are the authorization block of
// docs/nats-permissions.md, as written there.
func documentedUserServer(t *testing.T) (string, *violationLog) {
	t.Helper()
	doc := filepath.Join(testutil.ModuleRoot(t), "docs", "nats-permissions.md")
	snippets, err := docsnippet.Read(doc, "conf")
	if err != nil || len(snippets) == 0 {
		t.Fatalf("no conf snippet in %s: %v", doc, err)
	}
	conf := filepath.Join(t.TempDir(), "server.conf")
	if err := os.WriteFile(conf, []byte(snippets[0].Text), 0o600); err != nil {
		t.Fatal(err)
	}
	opts, err := server.ProcessConfigFile(conf)
	if err != nil {
		t.Fatalf("%s: the server config does not parse: %v", doc, err)
	}
	opts.Host, opts.Port, opts.JetStream, opts.StoreDir, opts.NoSigs = "127.0.0.1", -1, true, t.TempDir(), true
	ns, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	log := &violationLog{}
	ns.SetLogger(log, true, false)
	go ns.Start()
	if !ns.ReadyForConnections(time.Minute) {
		t.Fatal("nats-server not ready")
	}
	t.Cleanup(func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	})
	return ns.ClientURL(), log
}

// TestDocumentedPermissionsSuffice runs the pinned payment-risk case, and a record without
// a key that goes to the dead letters, as the pipeline user of docs/nats-permissions.md, with
// exactly the permissions listed there; the records are published and the outputs read as
// its producer user. It requires the outputs and not one permission violation on the server.
func TestDocumentedPermissionsSuffice(t *testing.T) {
	url, log := documentedUserServer(t)
	cfg := remotePipeline(t, fmt.Sprintf("url = %q\nuser = \"payment-risk\"\npassword = \"change-me\"\ninbox_prefix = \"_INBOX_payment_risk\"", url))
	producer := *cfg
	producer.Server.User, producer.Server.Password, producer.Server.InboxPrefix = "producer", "change-me-too", "_INBOX_producer"

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	p, err := Open(runCtx, cfg, Options{Logger: testLogger(t), StopWhenIdle: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ran := make(chan error, 1)
	go func() { ran <- p.Run(runCtx) }()
	publishLines(t, serverOptions(&producer, hclog.NewNullLogger()), pinnedEvents+`{"event":"no-account","cents":1}`+"\n")
	waitUntil(t, "2 outputs and 1 dead letter", func() bool { s := p.Stats(); return s.Emitted == 2 && s.DeadLettered == 1 })
	// What wasmstream checkpoints trigger does: a request on the control subject, answered
	// on the requester's inbox.
	if _, err := TriggerCheckpoint(ctx, cfg, testLogger(t), time.Minute); err != nil {
		t.Fatalf("checkpoints trigger as the pipeline's user: %v", err)
	}
	stop()
	if err := <-ran; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	got := results(t, readSubject(t, &producer, "risk.totals"))
	want := []riskResult{{"acct-47", "evt-47", 1200, 1200}, {"acct-47", "evt-48", 900, 2100}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("outputs %+v, want %+v", got, want)
	}
	if v := log.all(); len(v) > 0 {
		t.Fatalf("the documented permissions are not enough:\n%s", strings.Join(v, "\n"))
	}
}
