package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// languageModule returns the reference operator op built for lang: Go is
// built here, the others come from scripts/build-<lang>.sh.
func languageModule(b *testing.B, lang, op string) []byte {
	b.Helper()
	if lang == "go" {
		return testutil.GoGuestBytes(b, "./conformance/operators/go/"+op)
	}
	path := filepath.Join(testutil.ModuleRoot(b), "conformance", "build", lang, op+".wasm")
	wasm, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("%s not built: run scripts/build-%s.sh (%v)", path, lang, err)
	}
	return wasm
}

var languages = []string{"go", "rust", "c", "assemblyscript"}

// BenchmarkLanguages runs the `failer` reference operator (per record: one
// state get, one put, one emit with a header — the B1 work) in the B1
// harness for every SDK language, and reports module size, cold compile
// time and instantiate time.
func BenchmarkLanguages(b *testing.B) {
	recs := b1Records()
	for _, lang := range languages {
		b.Run(lang, func(b *testing.B) {
			wasm := languageModule(b, lang, "failer")
			ctx := context.Background()
			rt, err := host.NewRuntime(ctx, host.RuntimeConfig{}) // no cache: cold compile
			if err != nil {
				b.Fatal(err)
			}
			defer rt.Close(ctx)
			start := time.Now()
			mod, err := rt.Compile(ctx, lang, wasm)
			if err != nil {
				b.Fatal(err)
			}
			compile := time.Since(start)
			backend := b1Backend(b)
			start = time.Now()
			inst, err := mod.Instantiate(ctx, host.InstanceConfig{Operator: lang, Outputs: []string{"out"}}, backend)
			if err != nil {
				b.Fatal(err)
			}
			instantiate := time.Since(start)
			runB1(b, recs, func(batch []host.Record) (int, error) {
				outs, err := inst.Process(ctx, batch)
				return len(outs), err
			})
			b.ReportMetric(float64(len(wasm)), "module-bytes")
			b.ReportMetric(float64(compile.Milliseconds()), "compile-ms")
			b.ReportMetric(float64(instantiate.Microseconds()), "instantiate-us")
		})
	}
}
