package acceptance

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// procAttr makes the kernel SIGKILL a worker when the test binary dies
// (a -timeout panic runs no cleanup), as clustertest does for its nodes.
// Pdeathsig follows the OS thread that forked the child, not the process
// (go.dev/issue/27505): startChild forks every worker from one thread that
// lives as long as the test binary.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// spawner is a goroutine locked to its OS thread for the whole life of
// the test binary: the thread never ends, so no worker it forked gets its
// Pdeathsig while the test runs, whatever the runtime does with its other
// threads. (A worker once died of SIGKILL in TestCoordinatorFreeze with
// nothing in the test sending it one; whether a thread's end was the
// cause is not established, but it is the known way to get one.)
var spawner struct {
	once sync.Once
	reqs chan spawnRequest
}

type spawnRequest struct {
	cmd  *exec.Cmd
	done chan error
}

// startChild starts cmd from the spawner's thread.
func startChild(cmd *exec.Cmd) error {
	spawner.once.Do(func() {
		spawner.reqs = make(chan spawnRequest)
		go func() {
			runtime.LockOSThread() // never unlocked: the goroutine never ends
			for r := range spawner.reqs {
				r.done <- r.cmd.Start()
			}
		}()
	})
	done := make(chan error, 1)
	spawner.reqs <- spawnRequest{cmd: cmd, done: done}
	return <-done
}
