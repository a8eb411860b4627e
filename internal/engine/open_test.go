package engine

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// A failure after Open built part of the pipeline (here: the embedded
// server cannot listen because the port is taken) returns the error and
// releases what was built; it once panicked closing a nil pipeline.
func TestOpenFailureReturnsErrorAndCleansUp(t *testing.T) {
	skipInRacePass(t)
	wasm := testutil.GoGuest(t, paymentRiskPkg)
	port := testutil.FreePort(t)
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cfg := testPipeline(t, wasm, testutil.PrivateTempDir(t), port, "")
	p, err := Open(context.Background(), cfg, Options{Logger: testLogger(t)})
	if err == nil {
		p.Close()
		t.Fatal("Open succeeded with the embedded port taken")
	}
	if p != nil {
		t.Fatalf("Open returned a pipeline with the error %v", err)
	}
	if !strings.Contains(err.Error(), strconv.Itoa(port)) {
		t.Logf("error does not name the port: %v", err)
	}
}

// A second pipeline on the same data dir is refused before it touches
// anything: recovery rebuilds the live state, which the first one uses.
func TestOpenRefusesDataDirInUse(t *testing.T) {
	skipInRacePass(t)
	wasm := testutil.GoGuest(t, paymentRiskPkg)
	dataDir := t.TempDir()
	first, err := Open(context.Background(), testPipeline(t, wasm, dataDir, testutil.FreePort(t), ""), Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	second, err := Open(context.Background(), testPipeline(t, wasm, dataDir, testutil.FreePort(t), ""), Options{Logger: testLogger(t)})
	if !errors.Is(err, ErrDataDirInUse) {
		if second != nil {
			second.Close()
		}
		t.Fatalf("second Open = %v, want ErrDataDirInUse", err)
	}
	first.Close()
	third, err := Open(context.Background(), testPipeline(t, wasm, dataDir, testutil.FreePort(t), ""), Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatalf("Open after the first closed: %v", err)
	}
	third.Close()
}
