//go:build !wasip1

package hostcall

import (
	"strings"
	"testing"
)

type countingHost struct {
	Host // nil: only RecordNext is called
	n    int32
}

func (h *countingHost) RecordNext() int32 { h.n++; return h.n }

func TestCallsWithoutHostPanicClearly(t *testing.T) {
	defer func() {
		if s, _ := recover().(string); !strings.Contains(s, "sdktest") {
			t.Fatalf("panic %q does not point to sdktest", s)
		}
	}()
	RecordNext()
}

func TestInstallRoutesCallsAndReleases(t *testing.T) {
	h := &countingHost{}
	release := Install(h)
	if RecordNext() != 1 || RecordNext() != 2 {
		t.Fatal("calls did not reach the installed host")
	}
	release()
	if current != nil {
		t.Fatal("release left the host installed")
	}
	// The lock is free again: a second Install does not block.
	Install(&countingHost{})()
}
