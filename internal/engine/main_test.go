package engine

import (
	"os"
	"testing"

	"github.com/wasmstream/wasmstream/internal/testutil/natsproc"
)

// TestMain lets this test binary also be the standalone server of
// natsproc.Start.
func TestMain(m *testing.M) {
	natsproc.RunIfChild()
	os.Exit(m.Run())
}
