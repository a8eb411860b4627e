package engine

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/plugins"
)

// A module written straight into the registry's bucket, bypassing push
// (here one push refuses: its ws_init emits), with the metadata of a real
// push and the right hash, is listed and fetched like any version, but
// never loaded: validate and Open run the start-up checks push runs
// (compile, then ws_init) on whatever they fetched, and refuse it.
func TestRegistryRawWriteIsNeverLoaded(t *testing.T) {
	skipInRacePass(t)
	s := newSumSetup(t, 1)
	cfg := s.load(t)
	ctx := context.Background()
	c, err := ConnectClient(ctx, cfg, testLogger(t), AsControl)
	if err != nil {
		t.Fatal(err)
	}
	hostile, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), "plugins", "testdata", "initemit.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	reg := plugins.NewRegistry(c, plugins.Options{})
	if _, err := reg.Push(ctx, "rawop", hostile, plugins.Meta{}); !errors.Is(err, plugins.ErrInit) {
		c.Close()
		t.Fatalf("push of the hostile module: %v, want ErrInit", err)
	}
	wasm, err := os.ReadFile(s.module)
	if err != nil {
		t.Fatal(err)
	}
	pushed, err := reg.Push(ctx, "sum2", wasm, plugins.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	obs, err := c.JS.ObjectStore(ctx, reg.Bucket())
	if err != nil {
		t.Fatal(err)
	}
	info, err := obs.GetInfo(ctx, "sum2/"+pushed.Hash)
	if err != nil {
		t.Fatal(err)
	}
	raw := jetstream.ObjectMeta{Name: "rawop/" + plugins.HashBytes(hostile), Metadata: info.Metadata}
	if _, err := obs.Put(ctx, raw, bytes.NewReader(hostile)); err != nil {
		t.Fatal(err)
	}
	if e, err := reg.Resolve(ctx, plugins.Ref{Name: "rawop"}); err != nil || e.Hash != plugins.HashBytes(hostile) {
		t.Fatalf("resolve the raw write: %+v, %v; want it listed like a pushed version", e, err)
	}
	c.Close()

	s.module = "rawop"
	if _, err := Validate(ctx, s.load(t)); !errors.Is(err, host.ErrABIMisuse) {
		t.Fatalf("validate: %v, want the module refused for emitting in ws_init", err)
	}
	if err := openRefused(t, s.load(t), Options{}); !errors.Is(err, host.ErrABIMisuse) {
		t.Fatalf("open: %v, want the module refused for emitting in ws_init", err)
	}
}
