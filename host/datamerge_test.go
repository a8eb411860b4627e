package host

import (
	"bytes"
	"context"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// moduleWithData is a module of one memory of two pages and the given
// data section payload, preceded by the extra sections (already encoded).
func moduleWithData(extra []byte, payload []byte) []byte {
	b := []byte("\x00asm\x01\x00\x00\x00")
	b = append(b, secMemory, 3, 1, 0, 2) // one memory, min 2 pages
	b = append(b, extra...)
	b = append(b, secData)
	b = appendU32(b, uint32(len(payload)))
	return append(b, payload...)
}

// padding is a custom section of 8 KiB: a module large enough for the
// zeros the cases write out (at most its size).
var padding = append([]byte{0, 0x80, 0x40, 1, 'p'}, make([]byte, 8190)...)

// testSegment is a data segment to encode into a test module.
type testSegment struct {
	offset uint32
	data   string
}

func seg(offset uint32, data string) testSegment { return testSegment{offset, data} }

// activeSegments encodes a data section's payload of active segments of
// memory 0 at i32.const offsets.
func activeSegments(segs ...testSegment) []byte {
	out := appendU32(nil, uint32(len(segs)))
	for _, s := range segs {
		out = appendS32(append(out, 0, opI32Const), int32(s.offset))
		out = appendU32(append(out, opEnd), uint32(len(s.data)))
		out = append(out, s.data...)
	}
	return out
}

// initialMemory instantiates wasm in a plain wazero runtime, runs no code,
// and returns its memory.
func initialMemory(t *testing.T, wasm []byte) []byte {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	if err := instantiateImports(ctx, rt); err != nil {
		t.Fatal(err)
	}
	inst, err := rt.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := inst.Memory().Read(0, inst.Memory().Size())
	return bytes.Clone(b)
}

func segmentCount(t *testing.T, wasm []byte) int {
	t.Helper()
	sec, ok := dataSection(wasm)
	if !ok {
		t.Fatal("no data section")
	}
	segs, ok := decodeDataSegments(wasm, sec)
	if !ok {
		t.Fatal("data section not decodable")
	}
	return len(segs)
}

// The Go guest's memory after instantiation is the same byte for byte
// from its merged segments, of which there are far fewer.
func TestMergedDataSegmentsGiveTheSameMemory(t *testing.T) {
	wasm := testutil.GoGuestBytes(t, "./conformance/operators/go/counter")
	shape, err := CheckStructure(wasm, ModuleLimits{})
	if err != nil {
		t.Fatal(err)
	}
	original := boundTables(wasm, &shape)
	merged := mergeDataSegments(original)
	before, after := segmentCount(t, original), segmentCount(t, merged)
	t.Logf("%d data segments merged into %d; module %d -> %d bytes", before, after, len(original), len(merged))
	if after*100 > before {
		t.Fatalf("%d segments left of %d", after, before)
	}
	if len(merged) > 2*len(original) {
		t.Fatalf("module grew from %d to %d bytes", len(original), len(merged))
	}
	if !bytes.Equal(initialMemory(t, original), initialMemory(t, merged)) {
		t.Fatal("the merged segments give another initial memory")
	}
}

func TestMergeDataSegments(t *testing.T) {
	gap := string(make([]byte, maxDataGap))
	cases := []struct {
		name   string
		wasm   []byte
		merged []byte // nil: left as it is
	}{
		{"neighbours merged, in address order",
			moduleWithData(padding, activeSegments(seg(100, "cd"), seg(10, "ab"), seg(13, "x"))),
			moduleWithData(padding, activeSegments(seg(10, "ab\x00x"+string(make([]byte, 86))+"cd")))},
		{"a gap over maxDataGap kept",
			moduleWithData(padding, activeSegments(seg(0, "a"), seg(2+maxDataGap, "b"), seg(3+maxDataGap, "c"))),
			moduleWithData(padding, activeSegments(seg(0, "a"), seg(2+maxDataGap, "bc")))},
		{"a gap of maxDataGap merged",
			moduleWithData(padding, activeSegments(seg(0, "a"), seg(1+maxDataGap, "b"))),
			moduleWithData(padding, activeSegments(seg(0, "a"+gap+"b")))},
		{"more zeros than the module has bytes",
			moduleWithData(nil, activeSegments(seg(0, "a"), seg(1000, "b"))), nil},
		{"overlapping segments: order matters",
			moduleWithData(nil, activeSegments(seg(0, "abc"), seg(2, "x"))), nil},
		{"a data count section: segments may be named",
			moduleWithData([]byte{secDataCount, 1, 2}, activeSegments(seg(0, "a"), seg(2, "b"))), nil},
		{"a passive segment",
			moduleWithData(nil, []byte{2, 1, 1, 'p', 0, opI32Const, 0, opEnd, 1, 'a'}), nil},
		{"an offset that is not a constant",
			moduleWithData(nil, []byte{2, 0, opI32Const, 0, opEnd, 1, 'a', 0, 0x23, 0, opEnd, 1, 'b'}), nil},
		{"one segment", moduleWithData(nil, activeSegments(seg(0, "a"))), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := mergeDataSegments(c.wasm)
			want := c.merged
			if want == nil {
				want = c.wasm
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("got\n%x\nwant\n%x", got, want)
			}
		})
	}
}

// Merged modules that wazero instantiates give the memory the original
// gives (the cases above that wazero accepts without imports).
func TestMergedSmallModulesGiveTheSameMemory(t *testing.T) {
	for _, wasm := range [][]byte{
		moduleWithData(nil, activeSegments(seg(100, "cd"), seg(10, "ab"), seg(13, "x"))),
		moduleWithData(nil, activeSegments(seg(0, "a"), seg(1+maxDataGap, "b"), seg(65536+1000, "far"))),
		moduleWithData(nil, activeSegments(seg(1<<31-1, "x"))), // out of bounds: refused either way
	} {
		merged := mergeDataSegments(wasm)
		ctx := context.Background()
		rt := wazero.NewRuntime(ctx)
		_, errOriginal := rt.Instantiate(ctx, wasm)
		_, errMerged := rt.InstantiateWithConfig(ctx, merged, wazero.NewModuleConfig().WithName("merged"))
		_ = rt.Close(ctx)
		if (errOriginal == nil) != (errMerged == nil) {
			t.Fatalf("original: %v, merged: %v", errOriginal, errMerged)
		}
		if errOriginal == nil && !bytes.Equal(initialMemory(t, wasm), initialMemory(t, merged)) {
			t.Fatalf("module %x: another initial memory", wasm)
		}
	}
}

func TestSignedLEB128RoundTrip(t *testing.T) {
	for _, v := range []int32{0, 1, -1, 63, 64, -64, -65, 1 << 20, -(1 << 31), 1<<31 - 1} {
		r := wasmReader{b: appendS32(nil, v)}
		got, err := r.s32()
		if err != nil || got != v || r.left() != 0 {
			t.Fatalf("%d: got %d, %v, %d bytes left", v, got, err, r.left())
		}
	}
	for _, b := range [][]byte{{0xff, 0xff, 0xff, 0xff, 0x0f}, {0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, {0x80}} {
		r := wasmReader{b: b}
		if v, err := r.s32(); err == nil {
			t.Fatalf("%x: read %d, want an error", b, v)
		}
	}
}
