package clustertest

import (
	"fmt"
	"net"
)

// freePorts returns n distinct TCP ports of 127.0.0.1 that were free a
// moment ago. All listeners stay open until all ports are chosen, so the
// kernel cannot hand out one port twice.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("pick a free port: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
