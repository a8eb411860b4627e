package clustertest

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	RunNodeIfChild()
	os.Exit(m.Run())
}
