package natsio

import (
	"os"
	"testing"

	"github.com/wasmstream/wasmstream/internal/clustertest"
)

// TestMain lets this test binary also be a node of the clusters that
// clustertest.Start runs as child processes.
func TestMain(m *testing.M) {
	clustertest.RunNodeIfChild()
	os.Exit(m.Run())
}
