package plugins

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmstream/wasmstream/host"
)

// BenchmarkColdStart measures what a pipeline pays to get the Go example
// operator ready to instantiate: a new runtime and Compile (decode,
// compile to native code, validate against the ABI), first with an empty
// wazero compilation cache directory (the first start on a machine), then
// with a warm one (every later start of the same module version).
// scripts/bench-operator.sh runs it several times and prints medians.
func BenchmarkColdStart(b *testing.B) {
	wasm := goGuest(b)
	ctx := context.Background()
	b.Run("empty-cache", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			dir := filepath.Join(b.TempDir(), "wazero")
			b.StartTimer()
			compileOnce(b, ctx, dir, wasm)
		}
	})
	b.Run("warm-cache", func(b *testing.B) {
		dir := filepath.Join(b.TempDir(), "wazero")
		compileOnce(b, ctx, dir, wasm)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			compileOnce(b, ctx, dir, wasm)
		}
	})
}

func compileOnce(b *testing.B, ctx context.Context, cacheDir string, wasm []byte) {
	rt, err := host.NewRuntime(ctx, host.RuntimeConfig{CacheDir: cacheDir})
	if err != nil {
		b.Fatal(err)
	}
	m, err := rt.Compile(ctx, "payment-risk", wasm)
	if err != nil {
		b.Fatal(err)
	}
	_ = m.Close(ctx)
	_ = rt.Close(ctx)
}

// BenchmarkValidate measures what push spends validating the Go example
// operator (compiler engine, as validate, no cache).
func BenchmarkValidate(b *testing.B) {
	wasm := goGuest(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Validate(context.Background(), wasm, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFetch measures turning a registry reference into a file: a
// download from the embedded JetStream (empty module cache) against a
// cache hit (hash check of the cached file).
func BenchmarkFetch(b *testing.B) {
	r := newTestRegistry(b)
	e := mustPush(b, r, "payment-risk", goGuest(b))
	ctx := testCtx(b)
	b.Run("download", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			dir := b.TempDir()
			b.StartTimer()
			if _, _, err := r.Fetch(ctx, e.Ref(), dir); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cache-hit", func(b *testing.B) {
		dir := b.TempDir()
		if _, _, err := r.Fetch(ctx, e.Ref(), dir); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, _, err := r.Fetch(ctx, e.Ref(), dir); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			b.Fatalf("cache dir holds %d files, want 1", len(entries))
		}
	})
}
