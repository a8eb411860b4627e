package global_test

import (
	"bytes"
	"testing"

	"github.com/wasmstream/wasmstream/internal/cluster/global"
)

// The decoders see bytes from a bucket anyone with access can write: they
// must never panic, and whatever they accept must be exactly what the
// encoder writes for the result (one record, one encoding).

func FuzzDecodeAck(f *testing.F) {
	f.Add(mustEncode(f, global.EncodeAck, ack("a", 100, 0, 1)))
	f.Add([]byte(`{"format_version": 1}`))
	f.Add([]byte(`{"format_version": 2}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := global.DecodeAck(data)
		if err != nil {
			return
		}
		again, err := global.EncodeAck(a)
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("accepted bytes are not the encoding of the result: %v", err)
		}
	})
}

func FuzzDecodeManifest(f *testing.F) {
	f.Add(mustEncode(f, global.EncodeManifest, assemble(f, ack("a", 100, 0, 1), ack("b", 90, 2, 3))))
	f.Add([]byte(`{"format_version": 1, "checkpoint": {}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := global.DecodeManifest(data)
		if err != nil {
			return
		}
		again, err := global.EncodeManifest(m)
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("accepted bytes are not the encoding of the result: %v", err)
		}
	})
}

// FuzzMergeDeadLetterLists: the merge of accepted lists is itself an
// accepted list, and merging it again changes nothing.
func FuzzMergeDeadLetterLists(f *testing.F) {
	f.Add([]byte(`[{"source":"s","sequence":5}]`), []byte(`[{"source":"r","sequence":1}]`))
	f.Add([]byte(`[]`), []byte(`null`))
	f.Add([]byte(`{}`), []byte(`[{"source":1}]`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		merged, err := global.MergeDeadLetterLists([][]byte{a, b})
		if err != nil {
			return
		}
		again, err := global.MergeDeadLetterLists([][]byte{merged})
		if err != nil || !bytes.Equal(again, merged) {
			t.Fatalf("merge of %s and %s is %s, merged again %s (%v)", a, b, merged, again, err)
		}
	})
}
