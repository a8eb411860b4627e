package natsio

import (
	"os"
	"testing"

	"github.com/wasmstream/wasmstream/internal/clustertest"
	"github.com/wasmstream/wasmstream/internal/testutil/natsproc"
)

// TestMain lets this test binary also be a node of the clusters that
// clustertest.Start runs as child processes, or the standalone server of
// natsproc.Start.
func TestMain(m *testing.M) {
	clustertest.RunNodeIfChild()
	natsproc.RunIfChild()
	os.Exit(m.Run())
}
