package clustertest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test's cleanup kills every node and removes the directory of a
// passing test.
func TestCleanupKillsNodes(t *testing.T) {
	requireLinux(t)
	var pids []int
	var dir string
	t.Run("cluster", func(t *testing.T) {
		c := Start(t, 3)
		dir = c.dir
		for i := range 3 {
			pids = append(pids, c.PID(i))
		}
		c.Freeze(1) // a stopped process must die too
	})
	for _, pid := range pids {
		if !dead(pid) {
			t.Errorf("node process %d survives its test (state %s)", pid, processState(pid))
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("cluster directory %s kept after a passing test (stat: %v)", dir, err)
	}
}

// helperEnv makes TestHelperParent the parent whose death is tested.
const helperEnv = "WASMSTREAM_CLUSTERTEST_HELPER"

// A node dies with the process that started it, even when that process
// is SIGKILLed and runs no cleanup.
func TestNodesDieWithParent(t *testing.T) {
	requireLinux(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperParent$")
	// The helper dies without cleanup: its cluster directory goes in ours.
	cmd.Env = append(os.Environ(), helperEnv+"=1", "TMPDIR="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	pid := readPID(t, out)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	if !waitFor(5*time.Second, func() bool { return dead(pid) }) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("node %d still runs 5 s after its parent was SIGKILLed (state %s)", pid, processState(pid))
	}
}

// readPID reads the "node-pid N" line TestHelperParent prints.
func readPID(t *testing.T, out interface{ Read([]byte) (int, error) }) int {
	t.Helper()
	lines := make(chan string)
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			lines <- s.Text()
		}
		close(lines)
	}()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("helper ended without printing the node pid")
			}
			if v, found := strings.CutPrefix(l, "node-pid "); found {
				pid, err := strconv.Atoi(v)
				if err != nil {
					t.Fatal(err)
				}
				go func() { // drain, so the helper never blocks on a full pipe
					for range lines {
					}
				}()
				return pid
			}
		case <-timeout:
			t.Fatal("helper printed no node pid within 30 s")
		}
	}
}

// TestHelperParent is TestNodesDieWithParent's parent process; it only
// runs there.
func TestHelperParent(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		t.Skip("runs as the helper of TestNodesDieWithParent")
	}
	c := Start(t, 1)
	fmt.Printf("node-pid %d\n", c.PID(0))
	time.Sleep(time.Minute) // the parent SIGKILLs us long before
}
