package bench

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// ysServerBinary finds the nats-server binary of the external case:
// YARDSTICK_NATS_SERVER, then nats-server on PATH, then ~/go/bin, else it
// builds the server of go.mod (the version the engine embeds) once.
func ysServerBinary(b *testing.B) string {
	if p := os.Getenv("YARDSTICK_NATS_SERVER"); p != "" {
		return p
	}
	if p, err := exec.LookPath("nats-server"); err == nil {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, "go", "bin", "nats-server")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ysBuildServer(b)
}

// ysBuildServer builds go.mod's nats-server into the temporary directory;
// "" when that fails (the external case is then skipped, and says so).
func ysBuildServer(b *testing.B) string {
	out := filepath.Join(os.TempDir(), "wasmstream-yardstick-nats-server")
	if _, err := os.Stat(out); err == nil {
		return out
	}
	fmt.Println("yardstick: no nats-server binary found; building the one go.mod names")
	cmd := exec.Command("go", "build", "-o", out, "github.com/nats-io/nats-server/v2")
	cmd.Dir = testutil.ModuleRoot(b)
	if msg, err := cmd.CombinedOutput(); err != nil {
		fmt.Printf("yardstick: building nats-server failed: %v\n%s", err, msg)
		return ""
	}
	return out
}

// ysStartServer starts bin as a JetStream server on 127.0.0.1 in a child
// process with its store in a temporary directory, and returns its URL
// once it accepts connections. The benchmark's cleanup stops it.
func ysStartServer(b *testing.B, bin string) string {
	b.Helper()
	dir := b.TempDir()
	port := testutil.FreePort(b)
	log, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		b.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command(bin, "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-js", "-sd", filepath.Join(dir, "store"))
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		b.Fatalf("start %s: %v", bin, err)
	}
	b.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return "nats://" + addr
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s not accepting connections on %s (log %s)", bin, addr, log.Name())
		}
	}
}
