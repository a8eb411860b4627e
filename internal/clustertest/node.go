package clustertest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// NodeEnv is the environment variable that turns a test binary into a
// cluster node: it holds the node's JSON NodeConfig.
const NodeEnv = "WASMSTREAM_CLUSTERTEST_NODE"

// ClusterName is the route cluster name of every node.
const ClusterName = "wsct"

// NodeConfig is what a child needs to run one node. The parent picks every
// port once, so a restarted node comes back where its peers expect it.
type NodeConfig struct {
	Name       string `json:"name"`
	ClientPort int    `json:"client_port"`
	RoutePort  int    `json:"route_port"`
	// RoutePorts are the route ports of all nodes, this one included (the
	// server ignores a route to itself).
	RoutePorts []int  `json:"route_ports"`
	StoreDir   string `json:"store_dir"`
	// ParentPID is the process that started the node; the node exits when
	// it is gone.
	ParentPID int `json:"parent_pid"`
}

// RunNodeIfChild runs a cluster node and exits when NodeEnv is set, and
// returns at once otherwise. Call it first in TestMain of every package
// that uses Start: the node is the test binary re-executed, and it must
// never run the package's tests.
func RunNodeIfChild() {
	raw, ok := os.LookupEnv(NodeEnv)
	if !ok {
		return
	}
	var cfg NodeConfig
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		fmt.Fprintf(os.Stderr, "clustertest: bad %s: %v\n", NodeEnv, err)
		os.Exit(2)
	}
	if err := runNode(cfg); err != nil {
		fmt.Fprintf(os.Stderr, "clustertest: node %s: %v\n", cfg.Name, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// runNode starts the server and blocks until it shuts down (SIGTERM or
// SIGINT, since NoSigs is false) or the parent is gone.
func runNode(cfg NodeConfig) error {
	ns, err := server.NewServer(cfg.options())
	if err != nil {
		return err
	}
	ns.ConfigureLogger()
	go exitWithParent(cfg.ParentPID)
	ns.Start()
	if !ns.ReadyForConnections(30 * time.Second) {
		ns.Shutdown()
		return fmt.Errorf("not accepting connections on port %d after 30 s", cfg.ClientPort)
	}
	ns.WaitForShutdown()
	return nil
}

// options are the server options of §4 of the design: only ports and the
// store differ between nodes.
func (cfg NodeConfig) options() *server.Options {
	routes := make([]*url.URL, 0, len(cfg.RoutePorts))
	for _, p := range cfg.RoutePorts {
		routes = append(routes, &url.URL{Scheme: "nats-route", Host: hostPort(p)})
	}
	return &server.Options{
		ServerName: cfg.Name,
		Host:       "127.0.0.1",
		Port:       cfg.ClientPort,
		JetStream:  true,
		StoreDir:   cfg.StoreDir,
		// Small limits: several clusters may share a 2-core test machine,
		// and the default reserves a share of the machine's memory and disk.
		JetStreamMaxMemory: 256 << 20,
		JetStreamMaxStore:  2 << 30,
		// NoAdvertise: a client knows only the URLs it was given, so that a
		// test can put a proxy between a client and every node and cut it
		// off (the client would otherwise learn the nodes' own URLs and
		// reconnect around the proxy).
		Cluster: server.ClusterOpts{Name: ClusterName, Host: "127.0.0.1", Port: cfg.RoutePort, NoAdvertise: true},
		Routes:  routes,
		// A client that stops answering pings for about 3 s is closed by
		// the server, as docs/cluster.md asks of a cluster's servers: the
		// bytes a partitioned worker sent meanwhile then hit a closed
		// connection when the partition heals, instead of being stored
		// after its tasks moved.
		PingInterval: time.Second,
		MaxPingsOut:  2,
		Logtime:      true,
	}
}

// exitWithParent ends the node when the process that started it is gone:
// the node is then reparented, so its parent PID changes.
func exitWithParent(parent int) {
	for range time.Tick(250 * time.Millisecond) {
		if os.Getppid() != parent {
			fmt.Fprintln(os.Stderr, "clustertest: parent process gone, exiting")
			os.Exit(3)
		}
	}
}

func hostPort(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }
