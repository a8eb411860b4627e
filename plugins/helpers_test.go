package plugins

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// testTimeout bounds every NATS call in tests so that a broken behaviour
// fails instead of hanging. It is not a performance assertion.
const testTimeout = 60 * time.Second

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// embedded starts a JetStream server in-process on a random port with a
// fresh store, closed when the test ends.
func embedded(t testing.TB) *natsio.Conn {
	t.Helper()
	return embeddedAt(t, t.TempDir())
}

func embeddedAt(t testing.TB, dir string) *natsio.Conn {
	t.Helper()
	c, err := natsio.Connect(testCtx(t), natsio.ServerOptions{StoreDir: dir, EmbeddedPort: natsio.RandomPort})
	if err != nil {
		t.Fatalf("start embedded JetStream: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

func newTestRegistry(t testing.TB) *Registry {
	t.Helper()
	return NewRegistry(embedded(t), Options{})
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// variant returns the good module with a custom section holding n: a
// different version (hash) of an equally valid module.
func variant(t testing.TB, n uint64) []byte {
	t.Helper()
	return variantOf(fixture(t, "good.wasm"), n)
}

func variantOf(good []byte, n uint64) []byte {
	return withCustomSection(good, "v", binary.AppendUvarint(nil, n))
}

// withCustomSection appends a custom section, which validation ignores.
func withCustomSection(wasm []byte, name string, payload []byte) []byte {
	content := binary.AppendUvarint(nil, uint64(len(name)))
	content = append(content, name...)
	content = append(content, payload...)
	out := append([]byte{}, wasm...)
	out = append(out, 0)
	out = binary.AppendUvarint(out, uint64(len(content)))
	return append(out, content...)
}

func mustPush(t testing.TB, r *Registry, name string, wasm []byte) Entry {
	t.Helper()
	e, err := r.Push(testCtx(t), name, wasm, Meta{})
	if err != nil {
		t.Fatalf("push %s: %v", name, err)
	}
	return e
}

// goGuest builds the Go example operator (payment-risk) once per test binary.
func goGuest(t testing.TB) []byte {
	t.Helper()
	return testutil.GoGuestBytes(t, "./examples/payment-risk/operator")
}

func mustRef(t testing.TB, s string) Ref {
	t.Helper()
	ref, err := ParseRef(s)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}
