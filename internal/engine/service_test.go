package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats-server/v2/server"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/engine/control"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// namedPipeline is the payment-risk operator as pipeline name on the
// server at url, with streams and subjects of its own ("NAME_IN" on
// "name.in", "NAME_OUT" on "name.out"), so that several share a server.
func namedPipeline(t *testing.T, url, name string) *config.Pipeline {
	t.Helper()
	upper := strings.ToUpper(name)
	src := fmt.Sprintf(`
name     = %[1]q
data_dir = %[2]q
server { url = %[3]q }
stream "%[4]s_IN" { subjects = ["%[1]s.in"] }
stream "%[4]s_OUT" { subjects = ["%[1]s.out"] }
source "in" {
  stream  = "%[4]s_IN"
  subject = "%[1]s.in"
}
operator "risk" {
  module  = %[5]q
  inputs  = ["in"]
  key { json_field = "account" }
  outputs = { out = "out" }
}
sink "out" { subject = "%[1]s.out" }
`, name, testutil.PrivateTempDir(t), url, upper, testutil.GoGuest(t, paymentRiskPkg))
	path := filepath.Join(t.TempDir(), name+".hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// serving is a pipeline run by Serve, as wasmstream run runs it.
type serving struct {
	cfg    *config.Pipeline
	cancel context.CancelFunc
	done   chan error
}

func startServing(t *testing.T, cfg *config.Pipeline) *serving {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &serving{cfg: cfg, cancel: cancel, done: make(chan error, 1)}
	// No periodic checkpoints: the one a stop takes is the only one.
	go func() {
		s.done <- Serve(ctx, cfg, Options{Logger: testLogger(t), Checkpoint: CheckpointOptions{Interval: -1}})
	}()
	t.Cleanup(func() {
		cancel()
		<-s.done
	})
	// Opening compiles the module: slow under -race on a busy machine.
	deadline := time.Now().Add(5 * time.Minute)
	for {
		_, err := StatusOfRun(context.Background(), cfg, time.Second)
		if err == nil {
			return s
		}
		select {
		case err := <-s.done:
			s.done <- err // for the cleanup
			t.Fatalf("%s's Serve returned before its service answered: %v", cfg.Name, err)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s's service: %v", cfg.Name, err)
		}
	}
}

// publishTo publishes JSON lines to subject on cfg's server.
func publishTo(t *testing.T, cfg *config.Pipeline, subject, lines string) {
	t.Helper()
	ctx := context.Background()
	c, err := natsio.Connect(ctx, serverOptions(cfg, hclog.NewNullLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := natsio.PublishJSONLines(ctx, c, strings.NewReader(lines), subject, "", nil); err != nil {
		t.Fatal(err)
	}
}

// waitRecordsIn waits until cfg's status counts n records read and processed.
func waitRecordsIn(t *testing.T, cfg *config.Pipeline, n uint64) RunStatus {
	t.Helper()
	var st RunStatus
	waitUntil(t, fmt.Sprintf("%s processing %d records", cfg.Name, n), func() bool {
		var err error
		st, err = StatusOfRun(context.Background(), cfg, 10*time.Second)
		return err == nil && st.RecordsIn == n && st.Processed == n
	})
	return st
}

func listedNames(t *testing.T, url string) []string {
	t.Helper()
	list, err := RunningPipelines(context.Background(), &config.Pipeline{Server: config.Server{URL: url}}, time.Second, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, st := range list {
		names = append(names, st.Pipeline)
	}
	return names
}

// TestStopOnePipelineOfTwo is the "done when": two pipelines on
// one server are listed and answer their status; a stop ends one with a
// final checkpoint while the other goes on processing new records.
func TestStopOnePipelineOfTwo(t *testing.T) {
	url := externalServer(t, func(*server.Options) {})
	alpha, beta := startServing(t, namedPipeline(t, url, "alpha")), startServing(t, namedPipeline(t, url, "beta"))
	if got := listedNames(t, url); !slices.Equal(got, []string{"alpha", "beta"}) {
		t.Fatalf("pipelines listed %v, want [alpha beta]", got)
	}
	publishTo(t, alpha.cfg, "alpha.in", event("a", "a1", 100)+"\n")
	publishTo(t, beta.cfg, "beta.in", event("b", "b1", 200)+"\n")
	st := waitRecordsIn(t, alpha.cfg, 1)
	checkStatus(t, st, alpha.cfg)
	waitRecordsIn(t, beta.cfg, 1)

	reply, err := StopRun(context.Background(), alpha.cfg, 2*time.Minute)
	if err != nil {
		t.Fatalf("stop alpha: %v", err)
	}
	checkFinalCheckpoint(t, alpha, reply)
	if _, err := StatusOfRun(context.Background(), alpha.cfg, 5*time.Second); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("alpha's status after its stop: %v, want ErrNotRunning", err)
	}

	publishTo(t, beta.cfg, "beta.in", event("b", "b2", 300)+"\n")
	if st := waitRecordsIn(t, beta.cfg, 2); st.State != control.StateRunning {
		t.Fatalf("beta is %s after alpha's stop, want running", st.State)
	}
	if got := listedNames(t, url); !slices.Equal(got, []string{"beta"}) {
		t.Fatalf("pipelines listed %v after alpha's stop, want [beta]", got)
	}
}

func checkStatus(t *testing.T, st RunStatus, cfg *config.Pipeline) {
	t.Helper()
	if st.Pipeline != cfg.Name || st.State != control.StateRunning || st.PID != os.Getpid() || st.DataDir != cfg.DataDir || st.Started.IsZero() {
		t.Fatalf("status %+v: want pipeline %s running in this process on %s", st, cfg.Name, cfg.DataDir)
	}
	if len(st.Sources) != 1 || st.Sources[0].Name != "in" || st.Sources[0].Position != 1 || st.Sources[0].Pending == nil || *st.Sources[0].Pending != 0 {
		t.Fatalf("sources %+v, want in at position 1 with nothing pending", st.Sources)
	}
	if len(st.Operators) != 1 || st.Operators[0].Name != "risk" || st.Operators[0].Parallelism != 1 || len(st.Operators[0].ModuleSHA256) != 64 {
		t.Fatalf("operators %+v, want risk with parallelism 1 and its module's sha256", st.Operators)
	}
	if st.LastCheckpoint != nil || st.DeadLetters != 0 {
		t.Fatalf("status %+v: want no checkpoint yet (periodic ones are off) and no dead letters", st)
	}
}

// checkFinalCheckpoint: the stop's answer names the checkpoint the stop
// took, it is on disk, and Serve returned without an error.
func checkFinalCheckpoint(t *testing.T, s *serving, reply StopReply) {
	t.Helper()
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup
		if err != nil {
			t.Fatalf("%s's Serve after the stop: %v", s.cfg.Name, err)
		}
	case <-time.After(time.Minute):
		t.Fatalf("%s's Serve has not returned a minute after the stop answered", s.cfg.Name)
	}
	if reply.FinalCheckpoint == nil {
		t.Fatalf("stop reply %+v names no final checkpoint", reply)
	}
	ids, err := checkpoint.List(CheckpointRoot(s.cfg))
	if err != nil || !slices.Contains(ids, reply.FinalCheckpoint.ID) {
		t.Fatalf("checkpoints on disk %v (%v), want the final one %d", ids, err, reply.FinalCheckpoint.ID)
	}
}
