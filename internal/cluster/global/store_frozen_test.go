package global_test

import (
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// frozenLimit is how long a read from a frozen server may take before the
// test calls it hung: far above its attempts' deadlines.
const frozenLimit = time.Minute

// A manifest read from a server that stopped answering (a proxy holds
// every byte, as a stream leader that died while the object was read)
// gives up once its attempts' deadlines passed, instead of waiting for as
// long as the caller's context lasts; a read whose server answers again
// within its attempts succeeds. A worker restoring its moved tasks once
// waited for good on such a read after a SIGKILL of the Object Store's
// leader, and never started them (TestNATSFaultsDuringRescale).
func TestReadManifestGivesUpOnAFrozenServer(t *testing.T) {
	global.SetStoreAttemptTimeout(t, 500*time.Millisecond)
	obs, proxy := frozenObjectStore(t)
	object, sum, err := global.PutManifest(testCtx(t), obs, assemble(t, ack("a", 100, 0, 1), ack("b", 90, 2, 3)))
	if err != nil {
		t.Fatal(err)
	}

	proxy.Freeze()
	done := make(chan error, 1)
	go func() {
		_, err := global.ReadManifest(testCtx(t), obs, object, sum)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ship.ErrObjectStore) {
			t.Fatalf("read from a frozen server: %v, want an ErrObjectStore", err)
		}
		t.Logf("read from a frozen server: %v", err)
	case <-time.After(frozenLimit):
		t.Fatalf("read from a frozen server still waiting after %s", frozenLimit)
	}

	// Thawed while the read's first attempt waits: a later attempt reads it.
	go func() {
		_, err := global.ReadManifest(testCtx(t), obs, object, sum)
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	proxy.Thaw()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("read once the server answers again: %v", err)
		}
	case <-time.After(frozenLimit):
		t.Fatalf("read once the server answers again still waiting after %s", frozenLimit)
	}
}

// frozenObjectStore is a bucket on a real embedded server, reached
// through a proxy the test can freeze.
func frozenObjectStore(t *testing.T) (jetstream.ObjectStore, *testutil.FreezeProxy) {
	t.Helper()
	srv, err := natsio.Connect(testCtx(t), natsio.ServerOptions{StoreDir: t.TempDir(), EmbeddedPort: natsio.RandomPort})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	proxy := testutil.StartFreezeProxyFor(t, srv.ClientURL())
	c, err := natsio.Connect(testCtx(t), natsio.ServerOptions{URL: proxy.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	obs, err := c.EnsureObjectStore(testCtx(t), natsio.ObjectStoreSpec{Bucket: "state"})
	if err != nil {
		t.Fatal(err)
	}
	return obs, proxy
}
