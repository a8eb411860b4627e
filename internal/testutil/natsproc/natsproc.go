// Package natsproc runs a standalone JetStream server in a child process
// for tests: the test binary re-executed. A server in its own process is
// scheduled as an external one is, apart from the client under test; the
// source stall of issue 18 showed on an external server several times as
// often as on the embedded one, which shares the client's goroutine
// scheduler.
package natsproc

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// env turns a test binary into a server; it holds the JSON config.
const env = "WASMSTREAM_NATSPROC_SERVER"

// startLimit bounds the wait for the child to accept connections.
const startLimit = 30 * time.Second

type config struct {
	Port      int    `json:"port"`
	StoreDir  string `json:"store_dir"`
	ParentPID int    `json:"parent_pid"`
}

// RunIfChild runs the server and exits when the process is a child of
// Start, and returns at once otherwise. Call it first in TestMain.
func RunIfChild() {
	raw, ok := os.LookupEnv(env)
	if !ok {
		return
	}
	var cfg config
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		fmt.Fprintf(os.Stderr, "natsproc: bad %s: %v\n", env, err)
		os.Exit(2)
	}
	if err := serve(cfg); err != nil {
		fmt.Fprintf(os.Stderr, "natsproc: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func serve(cfg config) error {
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: cfg.Port, JetStream: true, StoreDir: cfg.StoreDir,
		// Small limits: the default reserves a share of a shared machine.
		JetStreamMaxMemory: 256 << 20, JetStreamMaxStore: 2 << 30})
	if err != nil {
		return err
	}
	ns.ConfigureLogger()
	go func() { // the child ends with its parent, even after a SIGKILL of it
		for range time.Tick(250 * time.Millisecond) {
			if os.Getppid() != cfg.ParentPID {
				os.Exit(3)
			}
		}
	}()
	ns.Start()
	if !ns.ReadyForConnections(startLimit) {
		return fmt.Errorf("server on port %d not ready after %s", cfg.Port, startLimit)
	}
	ns.WaitForShutdown()
	return nil
}

// Start starts a JetStream server without authentication in a child
// process and returns its URL once it accepts connections. The test's
// cleanup kills it.
func Start(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	cfg := config{Port: testutil.FreePort(t), StoreDir: filepath.Join(dir, "store"), ParentPID: os.Getpid()}
	cmd, err := command(cfg, filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatalf("natsproc: %v", err)
	}
	err = cmd.Start()
	cmd.Stdout.(*os.File).Close() // the child holds its own descriptor
	if err != nil {
		t.Fatalf("natsproc: start the server process: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.Port))
	for deadline := time.Now().Add(startLimit); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return "nats://" + addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("natsproc: server not accepting connections on %s after %s (log %s)", addr, startLimit, filepath.Join(dir, "server.log"))
		}
	}
}

// command re-executes the test binary as the server. -test.run=^$ makes a
// binary whose TestMain lacks RunIfChild run no test instead of recursing.
func command(cfg config, logPath string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the test binary to re-execute: %w", err)
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), env+"="+string(raw))
	cmd.Stdout, cmd.Stderr = log, log
	return cmd, nil
}
