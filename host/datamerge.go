package host

import (
	"cmp"
	"slices"
)

// Go's linker writes a module's data as one segment per run of non-zero
// bytes (33,724 segments holding 0.84 MB for the Go counter reference
// operator), and wazero evaluates each segment's offset and copies it at
// every instantiation: about half of what an instance of a Go guest
// costs. mergeDataSegments merges segments that lie close together into
// one, writing out the zeros between them; linear memory starts zeroed,
// so every instance's memory is the same byte for byte, from a handful of
// segments.
//
// It merges only where that is exact and unobservable: no data count
// section (memory.init and data.drop, the instructions that name a
// segment, need one), every segment active on memory 0 at an i32.const
// offset, and no two segments overlapping (so the order in which they
// are written does not matter).

// maxDataGap is the largest run of zeros written out between two merged
// segments; the zeros written out over the whole module are bounded by
// the module's size.
const maxDataGap = 4096

// dataSegment is an active segment of memory 0 at a constant offset;
// its bytes are wasm[at:at+size]. No pointers: a Go guest has ~34,000.
type dataSegment struct {
	offset   uint32
	at, size int
}

func (s dataSegment) end() uint64 { return uint64(s.offset) + uint64(s.size) }

// dataRun is segments merged into one, sorted by offset.
type dataRun []dataSegment

func (r dataRun) offset() uint32 { return r[0].offset }
func (r dataRun) size() int      { return int(r[len(r)-1].end() - uint64(r.offset())) }

// mergeDataSegments returns wasm with its data segments merged, or wasm
// itself when they cannot be merged exactly or there is nothing to merge.
// wasm has passed CheckStructure.
func mergeDataSegments(wasm []byte) []byte {
	sec, ok := dataSection(wasm)
	if !ok {
		return wasm
	}
	segs, ok := decodeDataSegments(wasm, sec)
	if !ok || len(segs) < 2 {
		return wasm
	}
	runs, ok := mergeSegments(segs, len(wasm))
	if !ok || len(runs) == len(segs) {
		return wasm
	}
	return writeDataSection(wasm, sec, runs)
}

// dataSection locates the data section; false when there is none or the
// module has a data count section.
func dataSection(wasm []byte) (span, bool) {
	r := wasmReader{b: wasm, pos: 8}
	var data span
	for r.left() > 0 {
		header := r.pos
		id, err := r.byte()
		if err != nil {
			return span{}, false
		}
		size, err := r.u32()
		if err != nil || r.skip(size) != nil || id == secDataCount {
			return span{}, false
		}
		if id == secData {
			data = span{header: header, start: r.pos - int(size), size: int(size)}
		}
	}
	return data, data.size > 0
}

// decodeDataSegments reads the data section; false when a segment is not
// active on memory 0 at an i32.const offset.
func decodeDataSegments(wasm []byte, sec span) ([]dataSegment, bool) {
	r := wasmReader{b: wasm[:sec.start+sec.size], pos: sec.start}
	n, err := r.vectorCount()
	if err != nil {
		return nil, false
	}
	segs := make([]dataSegment, 0, n)
	for range n {
		s, ok := decodeDataSegment(&r)
		if !ok {
			return nil, false
		}
		segs = append(segs, s)
	}
	return segs, r.left() == 0
}

const (
	opI32Const = 0x41
	opEnd      = 0x0b
)

func decodeDataSegment(r *wasmReader) (dataSegment, bool) {
	flags, err := r.u32()
	if err != nil || flags != 0 {
		return dataSegment{}, false
	}
	if op, err := r.byte(); err != nil || op != opI32Const {
		return dataSegment{}, false
	}
	offset, err := r.s32()
	if err != nil {
		return dataSegment{}, false
	}
	if end, err := r.byte(); err != nil || end != opEnd {
		return dataSegment{}, false
	}
	size, err := r.u32()
	if err != nil || r.skip(size) != nil {
		return dataSegment{}, false
	}
	return dataSegment{offset: uint32(offset), at: r.pos - int(size), size: int(size)}, true
}

// mergeSegments sorts segs by offset and merges neighbours at most
// maxDataGap apart, writing out at most budget zeros; false when two
// segments overlap.
func mergeSegments(segs []dataSegment, budget int) ([]dataRun, bool) {
	byOffset := func(a, b dataSegment) int { return cmp.Compare(a.offset, b.offset) }
	if !slices.IsSortedFunc(segs, byOffset) {
		slices.SortStableFunc(segs, byOffset)
	}
	var runs []dataRun
	first := 0
	for i := 1; i <= len(segs); i++ {
		if i < len(segs) {
			prevEnd, next := segs[i-1].end(), uint64(segs[i].offset)
			if next < prevEnd {
				return nil, false
			}
			if gap := next - prevEnd; gap <= maxDataGap && gap <= uint64(budget) {
				budget -= int(gap)
				continue
			}
		}
		runs = append(runs, dataRun(segs[first:i]))
		first = i
	}
	return runs, true
}

// writeDataSection returns wasm with the data section sec replaced by one
// segment per run, its bytes copied straight from wasm.
func writeDataSection(wasm []byte, sec span, runs []dataRun) []byte {
	payload := lenU32(uint32(len(runs)))
	for _, r := range runs {
		payload += 3 + lenS32(int32(r.offset())) + lenU32(uint32(r.size())) + r.size()
	}
	rest := wasm[sec.start+sec.size:]
	out := make([]byte, 0, sec.header+1+lenU32(uint32(payload))+payload+len(rest))
	out = append(out, wasm[:sec.header]...)
	out = appendU32(append(out, secData), uint32(payload))
	out = appendU32(out, uint32(len(runs)))
	for _, r := range runs {
		out = appendS32(append(out, 0, opI32Const), int32(r.offset()))
		out = appendU32(append(out, opEnd), uint32(r.size()))
		base := len(out)
		out = out[:base+r.size()] // zeros: make cleared the array
		for _, s := range r {
			copy(out[base+int(s.offset-r.offset()):], wasm[s.at:s.at+s.size])
		}
	}
	return append(out, rest...)
}

// appendS32 appends v as a signed LEB128.
func appendS32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func lenU32(v uint32) int { return len(appendU32(make([]byte, 0, 5), v)) }
func lenS32(v int32) int  { return len(appendS32(make([]byte, 0, 5), v)) }
