package clustertest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// startLimit bounds the wait for a started node to accept TCP connections.
// Servers accept clients 64–199 ms after start here (design §4); the rest
// is room for a loaded machine.
const startLimit = 20 * time.Second

// process is one run of a node. A restart makes a new one.
type process struct {
	cmd     *exec.Cmd
	done    chan struct{} // closed once the process was waited for
	waitErr error
}

// spawn starts the test binary as node cfg, appending its output to
// logPath, and returns once the node accepts TCP connections.
func spawn(cfg NodeConfig, logPath string) (*process, error) {
	cmd, err := nodeCommand(cfg, logPath)
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cmd.Stdout.(*os.File).Close()
		return nil, fmt.Errorf("start node %s: %w", cfg.Name, err)
	}
	cmd.Stdout.(*os.File).Close() // the child holds its own descriptor
	p := &process{cmd: cmd, done: make(chan struct{})}
	go p.wait()
	if err := p.awaitListening(cfg.ClientPort); err != nil {
		p.kill()
		return nil, fmt.Errorf("node %s (log %s): %w", cfg.Name, logPath, err)
	}
	return p, nil
}

// nodeCommand re-executes the test binary as a node. -test.run=^$ makes a
// binary whose TestMain forgot RunNodeIfChild run no test and exit, which
// awaitListening then reports instead of recursing into the tests.
func nodeCommand(cfg NodeConfig, logPath string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the test binary to re-execute: %w", err)
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("node %s log: %w", cfg.Name, err)
	}
	fmt.Fprintf(log, "=== clustertest: starting node %s at %s\n", cfg.Name, time.Now().Format(time.RFC3339Nano))
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), NodeEnv+"="+string(raw))
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = procAttr()
	return cmd, nil
}

func (p *process) wait() {
	p.waitErr = p.cmd.Wait()
	close(p.done)
}

// awaitListening polls the client port: the node has no other way to say
// it is up, and a TCP accept is what a client needs first.
func (p *process) awaitListening(port int) error {
	deadline := time.Now().Add(startLimit)
	for time.Now().Before(deadline) {
		if p.exited() {
			return fmt.Errorf("exited before accepting connections (%v); "+
				"does the package's TestMain call clustertest.RunNodeIfChild first?", p.waitErr)
		}
		c, err := net.DialTimeout("tcp", hostPort(port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("not accepting connections on port %d after %s", port, startLimit)
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// kill SIGKILLs the process (a stopped one too) and waits until it is
// reaped, so its ports are free and its files closed when kill returns.
func (p *process) kill() {
	if !p.exited() {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
	}
	<-p.done
}

// signal sends sig to a running process.
func (p *process) signal(sig syscall.Signal) error {
	if p.exited() {
		return errors.New("not running")
	}
	return p.cmd.Process.Signal(sig)
}

func (p *process) pid() int { return p.cmd.Process.Pid }
