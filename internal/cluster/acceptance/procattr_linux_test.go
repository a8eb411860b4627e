package acceptance

import "syscall"

// procAttr makes the kernel SIGKILL a worker when the test binary dies
// (a -timeout panic runs no cleanup), as clustertest does for its nodes.
// Pdeathsig follows the OS thread that forked the child; Go ends no thread
// of a goroutine that is not locked to it.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
