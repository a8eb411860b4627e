package natsio

import (
	"net/http"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
)

// canonicalIsBatchHeader is the definition isBatchHeader implements
// faster: the canonical name starts with the batch prefix.
func canonicalIsBatchHeader(name string) bool {
	return strings.HasPrefix(http.CanonicalHeaderKey(name), batchHeaderPrefix)
}

// batchHeaderNames are names around the edges of the definition: exact,
// other ASCII case, names canonicalization leaves alone (a space, a
// non-token byte), non-ASCII look-alikes, and too short.
var batchHeaderNames = []string{
	"Nats-Batch-Id", "Nats-Batch-Sequence", "Nats-Batch-Commit", "Nats-Batch-",
	"nats-batch-id", "NATS-BATCH-SEQUENCE", "nAtS-bAtCh-x",
	"nats-batch-x y", "Nats-Batch-x y", "nats-batch-\x00", "Nats-Batch-\xff",
	"Nat\u017f-Batch-Id", "Nats-Batch", "Nats-Batch_Id", "Nats-Msg-Id", "Key", "", "N",
	"Wasmstream-Key", "nats-batch-commit ",
}

func TestIsBatchHeaderMatchesCanonicalDefinition(t *testing.T) {
	for _, name := range batchHeaderNames {
		if got, want := isBatchHeader(name), canonicalIsBatchHeader(name); got != want {
			t.Errorf("isBatchHeader(%q) = %v, want %v (canonical %q)", name, got, want, http.CanonicalHeaderKey(name))
		}
	}
}

func FuzzIsBatchHeader(f *testing.F) {
	for _, name := range batchHeaderNames {
		f.Add(name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := isBatchHeader(name), canonicalIsBatchHeader(name); got != want {
			t.Fatalf("isBatchHeader(%q) = %v, want %v", name, got, want)
		}
	})
}

// BenchmarkIsBatchHeader compares isBatchHeader with its definition on the
// headers of a typical output (withMsgID and WireSize check each one).
func BenchmarkIsBatchHeader(b *testing.B) {
	h := nats.Header{"Key": {"key-0000001"}, "Wasmstream-Source": {"in"}, "count": {"3"}}
	for _, impl := range []struct {
		name string
		f    func(string) bool
	}{{"fast", isBatchHeader}, {"canonical", canonicalIsBatchHeader}} {
		b.Run(impl.name, func(b *testing.B) {
			n := 0
			for i := 0; i < b.N; i++ {
				for k := range h {
					if impl.f(k) {
						n++
					}
				}
			}
			if n != 0 {
				b.Fatal("a plain header counted as a batch header")
			}
		})
	}
}
