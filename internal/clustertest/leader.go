package clustertest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Wait bounds. A Raft election takes 4–9 s (nats-server raft.go election
// timeouts), and the first R3 create after start took 2.2–6.5 s (design
// §4); the limits leave room for a loaded 2-core machine. A wait that
// reaches one means the cluster is broken, not slow.
const (
	leaderLimit = 30 * time.Second
	readyLimit  = 45 * time.Second
	apiTimeout  = 5 * time.Second
)

// StreamLeader returns the index of the node that leads stream, as the
// JetStream API ($JS.API.STREAM.INFO) reports it, waiting while an
// election is under way.
func (c *Cluster) StreamLeader(t testing.TB, stream string) int {
	t.Helper()
	js := c.JetStream(t)
	var last error
	for deadline := time.Now().Add(leaderLimit); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		name, err := streamLeaderName(js, stream)
		if err != nil {
			last = err
			continue
		}
		if i := c.indexOf(name); i >= 0 {
			return i
		}
		last = fmt.Errorf("leader %q is no node of this cluster", name)
	}
	t.Fatalf("clustertest: no leader of stream %s within %s: %v", stream, leaderLimit, last)
	return -1
}

func streamLeaderName(js jetstream.JetStream, stream string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return "", err
	}
	info := s.CachedInfo()
	if info.Cluster == nil || info.Cluster.Leader == "" {
		return "", errors.New("no leader elected yet")
	}
	return info.Cluster.Leader, nil
}

func (c *Cluster) indexOf(name string) int {
	for i, n := range c.nodes {
		if n.cfg.Name == name {
			return i
		}
	}
	return -1
}

// WaitReady waits until the cluster can create a stream replicated on
// every node, and delete it: the meta leader is elected and every node
// takes part. Call it after Start and after restarting nodes; it cannot
// succeed while a node is killed or frozen (an R3 create then needs a
// third peer).
func (c *Cluster) WaitReady(t testing.TB) {
	t.Helper()
	js := c.JetStream(t)
	start := time.Now()
	var tried []string
	var last error
	for attempt := 1; time.Since(start) < readyLimit; attempt++ {
		name := fmt.Sprintf("CLUSTERTEST_PROBE_%d_%d", start.UnixNano(), attempt)
		tried = append(tried, name)
		if last = c.probe(js, name, probeTimeout(attempt)); last == nil {
			t.Logf("clustertest: %d-node cluster ready after %s", c.N(), time.Since(start).Round(time.Millisecond))
			deleteStreams(js, tried[:len(tried)-1])
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("clustertest: cluster not ready within %s: %v (node logs: %s)", readyLimit, last, c.logPaths())
}

// probeTimeout grows with the attempt: before the meta leader is elected
// a create goes unanswered, and a short first wait sees the election
// sooner; later attempts give a loaded machine more time.
func probeTimeout(attempt int) time.Duration {
	return min(time.Duration(attempt)*500*time.Millisecond, apiTimeout)
}

// probe creates and deletes a memory stream on every node. Each attempt
// uses a new name: a create repeated under the same name while the first
// is still in flight went unanswered (cluster ready after 6.4 s instead of
// 1.2 s).
func (c *Cluster) probe(js jetstream.JetStream, name string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: name, Subjects: []string{"clustertest.probe." + name},
		Storage: jetstream.MemoryStorage, Replicas: c.N()})
	if err != nil {
		return fmt.Errorf("create probe stream: %w", err)
	}
	if err := js.DeleteStream(ctx, name); err != nil {
		return fmt.Errorf("delete probe stream %s: %w", name, err)
	}
	return nil
}

// deleteStreams removes probes of failed attempts that the cluster created
// after all; most never existed.
func deleteStreams(js jetstream.JetStream, names []string) {
	for _, name := range names {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = js.DeleteStream(ctx, name)
		cancel()
	}
}

func (c *Cluster) logPaths() string {
	paths := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		paths[i] = n.logPath
	}
	return strings.Join(paths, ", ")
}
