//go:build !linux

package acceptance

import (
	"os/exec"
	"syscall"
)

// procAttr is empty where Pdeathsig does not exist: a worker left behind
// by a killed test binary stops once its cluster is gone (the nodes end
// with their parent) and its outage budget has run out.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

// startChild starts cmd.
func startChild(cmd *exec.Cmd) error { return cmd.Start() }
