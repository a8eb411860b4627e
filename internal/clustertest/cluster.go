package clustertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Cluster is a running test cluster. Its methods call t.Fatal and must be
// called from the test's goroutine.
type Cluster struct {
	t   testing.TB
	dir string

	mu    sync.Mutex
	nodes []*node
}

// node is one node's fixed identity and its current process.
type node struct {
	cfg     NodeConfig
	logPath string
	proc    *process // nil while killed
	frozen  bool
}

// Start starts an n-node cluster (n is 3 for every test the design asks
// for) and returns once every node accepts TCP connections; call WaitReady
// before using JetStream. The test's cleanup kills every node.
func Start(t testing.TB, n int) *Cluster {
	t.Helper()
	if n < 1 || n > 5 {
		t.Fatalf("clustertest.Start: %d nodes; use 1 to 5, the most replicas a JetStream stream can have (3 for R3)", n)
	}
	c, err := newCluster(t, n)
	if err != nil {
		t.Fatalf("clustertest.Start: %v", err)
	}
	t.Cleanup(c.cleanup)
	for i := range c.nodes {
		if err := c.spawn(i); err != nil {
			t.Fatalf("clustertest.Start: %v", err)
		}
	}
	return c
}

// newCluster lays out n nodes: names, ports and store directories that
// stay the same across restarts. The directory is not a t.TempDir, so a
// failed test can keep the logs.
func newCluster(t testing.TB, n int) (*Cluster, error) {
	dir, err := os.MkdirTemp("", "clustertest-")
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(2 * n)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	routePorts := ports[n:]
	c := &Cluster{t: t, dir: dir}
	for i := range n {
		name := fmt.Sprintf("n%d", i)
		c.nodes = append(c.nodes, &node{
			cfg: NodeConfig{Name: name, ClientPort: ports[i], RoutePort: routePorts[i], RoutePorts: routePorts,
				StoreDir: filepath.Join(dir, name), ParentPID: os.Getpid()},
			logPath: filepath.Join(dir, name+".log"),
		})
	}
	return c, nil
}

func (c *Cluster) spawn(i int) error {
	p, err := spawn(c.nodes[i].cfg, c.nodes[i].logPath)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.nodes[i].proc, c.nodes[i].frozen = p, false
	c.mu.Unlock()
	return nil
}

// cleanup kills every node, then removes the directory, or keeps it and
// shows the logs when the test failed.
func (c *Cluster) cleanup() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.nodes {
		if n.proc != nil {
			n.proc.kill()
			n.proc = nil
		}
	}
	if !c.t.Failed() {
		os.RemoveAll(c.dir)
		return
	}
	for _, n := range c.nodes {
		c.t.Logf("clustertest: node %s log kept at %s; its end:\n%s", n.cfg.Name, n.logPath, tail(n.logPath, 25))
	}
}

// N is the number of nodes.
func (c *Cluster) N() int { return len(c.nodes) }

// Name is node i's server name, "n<i>".
func (c *Cluster) Name(i int) string { return c.node(i).cfg.Name }

// URL is node i's client URL.
func (c *Cluster) URL(i int) string { return "nats://" + hostPort(c.node(i).cfg.ClientPort) }

// URLs is every node's client URL, comma-separated, as nats.Connect and a
// pipeline's server url take them.
func (c *Cluster) URLs() string {
	urls := make([]string, len(c.nodes))
	for i := range c.nodes {
		urls[i] = c.URL(i)
	}
	return strings.Join(urls, ",")
}

// LogPath is the file node i logs to; restarts append to it.
func (c *Cluster) LogPath(i int) string { return c.node(i).logPath }

// PID is the process id of node i, or 0 while it is killed.
func (c *Cluster) PID(i int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.node(i).proc; p != nil {
		return p.pid()
	}
	return 0
}

func (c *Cluster) node(i int) *node {
	if i < 0 || i >= len(c.nodes) {
		c.t.Fatalf("clustertest: no node %d in a %d-node cluster", i, len(c.nodes))
	}
	return c.nodes[i]
}

// tail returns the last n lines of the file at path, or why it cannot.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
