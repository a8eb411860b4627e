package clustertest

import "syscall"

// Kill SIGKILLs node i and waits until the process is gone: the crash of a
// machine, as far as the cluster can tell. Its store stays for Restart.
func (c *Cluster) Kill(i int) {
	c.t.Helper()
	n := c.node(i)
	c.mu.Lock()
	defer c.mu.Unlock()
	if n.proc == nil {
		c.t.Fatalf("clustertest: Kill(%d): node %s is not running", i, n.cfg.Name)
	}
	n.proc.kill()
	n.proc, n.frozen = nil, false
}

// Freeze SIGSTOPs node i: its sockets stay open but nothing answers, like a
// hung machine or a long pause. Thaw resumes it.
func (c *Cluster) Freeze(i int) { c.t.Helper(); c.stopOrContinue(i, syscall.SIGSTOP, true) }

// Thaw SIGCONTs a frozen node i.
func (c *Cluster) Thaw(i int) { c.t.Helper(); c.stopOrContinue(i, syscall.SIGCONT, false) }

func (c *Cluster) stopOrContinue(i int, sig syscall.Signal, frozen bool) {
	c.t.Helper()
	n := c.node(i)
	c.mu.Lock()
	defer c.mu.Unlock()
	if n.proc == nil || n.frozen == frozen {
		c.t.Fatalf("clustertest: %v to node %s: running=%t frozen=%t", sig, n.cfg.Name, n.proc != nil, n.frozen)
	}
	if err := n.proc.signal(sig); err != nil {
		c.t.Fatalf("clustertest: %v to node %s: %v (log %s)", sig, n.cfg.Name, err, n.logPath)
	}
	n.frozen = frozen
}

// Restart starts node i again on the same ports with the same store,
// SIGKILLing it first if it still runs (frozen or not). It returns once
// the node accepts connections; it may still be catching up.
func (c *Cluster) Restart(i int) {
	c.t.Helper()
	n := c.node(i)
	c.mu.Lock()
	if n.proc != nil {
		n.proc.kill()
		n.proc = nil
	}
	c.mu.Unlock()
	if err := c.spawn(i); err != nil {
		c.t.Fatalf("clustertest: Restart(%d): %v", i, err)
	}
}
