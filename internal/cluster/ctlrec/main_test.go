package ctlrec_test

import (
	"os"
	"testing"

	"github.com/wasmstream/wasmstream/internal/clustertest"
)

func TestMain(m *testing.M) {
	clustertest.RunNodeIfChild()
	os.Exit(m.Run())
}
