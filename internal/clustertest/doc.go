// Package clustertest starts a real 3-node nats-server JetStream cluster on
// 127.0.0.1 for tests, one child process per node, and injects the faults a
// cluster deployment has to survive: SIGKILL (Kill), SIGSTOP/SIGCONT
// (Freeze, Thaw) and a restart on the same ports and store (Restart).
//
// Why child processes: an in-process server can only be shut down
// gracefully, and a graceful leader step-down takes 29–584 ms, while a
// SIGKILLed stream leader leaves an R3 stream unwritable for 4–7 s until a
// Raft election times out (../../shared/cluster.md §4 and §6 measured both).
// Only a separate process can be killed or frozen like a machine.
//
// The children are the test binary itself, re-executed with the node's
// configuration in the environment variable WASMSTREAM_CLUSTERTEST_NODE.
// Every package that calls Start must therefore call RunNodeIfChild first
// in its TestMain:
//
//	func TestMain(m *testing.M) {
//		clustertest.RunNodeIfChild()
//		os.Exit(m.Run())
//	}
//
// Nodes are named n0, n1, n2: the index passed to Kill, Freeze, Thaw and
// Restart is the digit of the name StreamLeader reports. Each node keeps
// its client port, route port and store directory across restarts, so a
// restarted node rejoins as the same Raft peer with its data.
//
// No node outlives its test: the test's cleanup kills every child (also
// after a failure or a panic), the kernel kills a child whose parent dies
// (Pdeathsig on Linux), and each child also exits once its parent process
// is gone (for the cases Pdeathsig misses, see procattr_linux.go). Each
// node logs to <dir>/nN.log; a failed test keeps the directory and prints
// the paths and the tail of every log.
package clustertest
