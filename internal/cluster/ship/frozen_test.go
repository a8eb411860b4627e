package ship_test

import (
	"errors"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// frozenLimit is how long an upload to a frozen server may take before
// the test calls it hung: far above its attempts' deadlines.
const frozenLimit = time.Minute

// An upload to a server that stopped answering (a proxy holds every byte,
// as a leader that died with the acks of the chunks sent to it) fails
// once its attempts' deadlines passed, instead of waiting for acks that
// never come for as long as the caller's context lasts; once the server
// answers again the same upload succeeds. A part's checkpoint once
// waited on such a put after a SIGKILL of the Object Store's leader.
func TestUploadGivesUpOnAFrozenServer(t *testing.T) {
	srv, _ := objectStore(t)
	proxy := testutil.StartFreezeProxyFor(t, srv.ClientURL())
	c, err := natsio.Connect(testCtx(t), natsio.ServerOptions{URL: proxy.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	obs := bucket(t, c, "frozen")
	s, err := ship.New(testCtx(t), obs, ship.Options{IndexDir: t.TempDir(), CacheDir: t.TempDir(), PutTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	fill(t, st, 2000, 64, 1)
	snap, err := s.Snapshot(st.DB(), t.TempDir()+"/ckpt", task(0))
	if err != nil {
		t.Fatal(err)
	}

	proxy.Freeze()
	done := make(chan error, 1)
	go func() {
		_, err := s.Upload(testCtx(t), snap, "ckpt/1-g1/w-a-a1/risk-0.json")
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ship.ErrObjectStore) {
			t.Fatalf("upload to a frozen server: %v, want an ErrObjectStore", err)
		}
		t.Logf("upload to a frozen server: %v", err)
	case <-time.After(frozenLimit):
		t.Fatalf("upload to a frozen server still waiting after %s", frozenLimit)
	}

	proxy.Thaw()
	res, err := s.Upload(testCtx(t), snap, "ckpt/2-g1/w-a-a1/risk-0.json")
	if err != nil {
		t.Fatalf("upload once the server answers again: %v", err)
	}

	// Reads give up likewise: a restore must not wait for ever either.
	proxy.Freeze()
	read := make(chan error, 1)
	go func() {
		_, err := s.FetchManifest(testCtx(t), res.ManifestObject, res.ManifestSHA256)
		read <- err
	}()
	select {
	case err := <-read:
		if !errors.Is(err, ship.ErrObjectStore) {
			t.Fatalf("read from a frozen server: %v, want an ErrObjectStore", err)
		}
	case <-time.After(frozenLimit):
		t.Fatalf("read from a frozen server still waiting after %s", frozenLimit)
	}
	proxy.Thaw()
}
