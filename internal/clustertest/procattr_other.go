//go:build !linux

package clustertest

import "syscall"

// procAttr is empty where Pdeathsig does not exist; the node's parent watch
// (exitWithParent) then ends it within a quarter of a second.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
