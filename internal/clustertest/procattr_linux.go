package clustertest

import "syscall"

// procAttr makes the kernel SIGKILL a node when its parent dies, so that a
// test binary killed by -timeout or a signal leaves no server behind.
// Pdeathsig fires when the OS thread that forked the child exits, not the
// process; Go does not end threads of goroutines that are not locked to
// them, and the node's own parent watch (exitWithParent) covers the rest.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
