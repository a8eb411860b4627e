package host

// Output is one record a guest emitted. Its slices point into the batch's
// arena and stay valid until the instance's next Process call.
type Output struct {
	Output  int // index into InstanceConfig.Outputs
	Record  int // index of the input record in the batch that caused it
	Seq     int // position among the outputs of that input record
	Key     []byte
	Value   []byte
	Headers []byte // abi-encoded header list
}

// output returns the index of the output called name. The last name found
// is remembered: operators emit to one output record after record, and a
// byte comparison is cheaper than hashing the name into the map.
func (inst *Instance) output(name []byte) (int, bool) {
	if inst.lastOutput >= 0 && string(name) == inst.cfg.Outputs[inst.lastOutput] {
		return inst.lastOutput, true
	}
	i, ok := inst.outputIndex[string(name)]
	if ok {
		inst.lastOutput = i
	}
	return i, ok
}

// outputBuffer collects a batch's emits in one arena so that emitting costs
// no allocation per record once the arena has grown.
type outputBuffer struct {
	arena []byte
	spans []outputSpan
}

type outputSpan struct {
	output, record, seq        int
	start, keyEnd, valEnd, end int
}

func (b *outputBuffer) reset() {
	b.arena = b.arena[:0]
	b.spans = b.spans[:0]
}

func (b *outputBuffer) add(output, record int, key, val, hdr []byte) {
	seq := 0
	if n := len(b.spans); n > 0 && b.spans[n-1].record == record {
		seq = b.spans[n-1].seq + 1
	}
	s := outputSpan{output: output, record: record, seq: seq, start: len(b.arena)}
	b.arena = append(b.arena, key...)
	s.keyEnd = len(b.arena)
	b.arena = append(b.arena, val...)
	s.valEnd = len(b.arena)
	b.arena = append(b.arena, hdr...)
	s.end = len(b.arena)
	b.spans = append(b.spans, s)
}

// outputMark is the size of a buffer, to truncate back to.
type outputMark struct{ arena, spans int }

func (b *outputBuffer) mark() outputMark { return outputMark{len(b.arena), len(b.spans)} }

func (b *outputBuffer) truncate(m outputMark) {
	b.arena, b.spans = b.arena[:m.arena], b.spans[:m.spans]
}

// lastRecord returns the record of the latest output, or -1.
func (b *outputBuffer) lastRecord() int {
	if len(b.spans) == 0 {
		return -1
	}
	return b.spans[len(b.spans)-1].record
}

// emitsOf returns the number of outputs of record, which must be the
// record of the latest output or later (outputs are added in record order).
func (b *outputBuffer) emitsOf(record int) int {
	if n := len(b.spans); n > 0 && b.spans[n-1].record == record {
		return b.spans[n-1].seq + 1
	}
	return 0
}

// appendTo converts the spans into Outputs after the arena stopped growing.
func (b *outputBuffer) appendTo(dst []Output) []Output {
	for _, s := range b.spans {
		dst = append(dst, Output{
			Output:  s.output,
			Record:  s.record,
			Seq:     s.seq,
			Key:     b.arena[s.start:s.keyEnd:s.keyEnd],
			Value:   b.arena[s.keyEnd:s.valEnd:s.valEnd],
			Headers: b.arena[s.valEnd:s.end:s.end],
		})
	}
	return dst
}
