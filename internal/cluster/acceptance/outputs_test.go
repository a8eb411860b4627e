package acceptance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// outputReport accounts the stored outputs against the model, by
// Nats-Msg-Id and by payload (design §6, check 1). With an idempotent sink
// and a duplicate window longer than the test, every expected id must be
// stored exactly once and nothing else: the workers together must store
// what one process would.
type outputReport struct {
	stored      int // messages in the output stream
	lost        int // expected ids with no stored message
	duplicates  int // messages whose id was stored before
	unexpected  int // messages whose id the model does not expect
	differing   int // messages whose payload is not the model's for their id
	undecodable int // messages that are not sum2 outputs
	// sameEffect counts messages whose payload another id already
	// carried: one output stored twice under two ids, which deduplication
	// cannot catch.
	sameEffect int
	examples   []string
}

// checkOutputs accounts msgs (in stream order) against m and returns the
// decoded outputs in stream order, for the per-key check.
func checkOutputs(msgs []storedMsg, m *model) (outputReport, []sumOutput) {
	r := outputReport{stored: len(msgs)}
	ids := make(map[string]bool, len(msgs))
	effects := make(map[sumOutput]string, len(msgs))
	outs := make([]sumOutput, 0, len(msgs))
	for _, msg := range msgs {
		o, err := decodeOutput(msg.data)
		if err != nil {
			r.undecodable++
			r.note("stream sequence %d (%s): %v: %q", msg.seq, msg.msgID, err, msg.data)
			continue
		}
		outs = append(outs, o)
		want, expected := m.byID[msg.msgID]
		switch {
		case ids[msg.msgID]:
			r.duplicates++
			r.note("%s stored again at stream sequence %d", msg.msgID, msg.seq)
		case !expected:
			r.unexpected++
			r.note("unexpected id %q at stream sequence %d: %s", msg.msgID, msg.seq, msg.data)
		case o != want:
			r.differing++
			r.note("%s is %s, the model's %+v", msg.msgID, msg.data, want)
		}
		ids[msg.msgID] = true
		if first, ok := effects[o]; ok && first != msg.msgID {
			r.sameEffect++
			r.note("%s carries the payload of %s: %s", msg.msgID, first, msg.data)
		} else if !ok {
			effects[o] = msg.msgID
		}
	}
	for id := range m.byID {
		if !ids[id] {
			r.lost++
			r.note("lost %s (the model's %+v)", id, m.byID[id])
		}
	}
	return r, outs
}

// checkGraphOutputs is checkOutputs for the graph pipeline
// (pipelineFile.graph). Operator sum reads an exchange stream there, so an
// output's id names the exchange sequence of its input, which the order in
// which the last stage's tasks published decides; the model knows the
// payloads instead (each unique: a key's running count). Every payload of
// the model must be stored exactly once, under an id of sum's exchange
// input, and nothing else: one stored twice under two ids (sameEffect) is
// an input the exchange carried twice.
func checkGraphOutputs(msgs []storedMsg, m *model) (outputReport, []sumOutput) {
	prefix := fmt.Sprintf("%s.%s.%s.", pipelineName, operatorName, graphStages[len(graphStages)-1]+".out")
	return checkPayloads(msgs, m, func(id string) bool { return strings.HasPrefix(id, prefix) })
}

// checkPayloads accounts msgs against the model's payloads: each stored
// once, under an id idOK accepts, and nothing else.
func checkPayloads(msgs []storedMsg, m *model, idOK func(string) bool) (outputReport, []sumOutput) {
	r := outputReport{stored: len(msgs)}
	want := make(map[sumOutput]bool, len(m.byID))
	for _, o := range m.byID {
		want[o] = true
	}
	ids := make(map[string]bool, len(msgs))
	effects := make(map[sumOutput]string, len(msgs))
	outs := make([]sumOutput, 0, len(msgs))
	for _, msg := range msgs {
		o, err := decodeOutput(msg.data)
		if err != nil {
			r.undecodable++
			r.note("stream sequence %d (%s): %v: %q", msg.seq, msg.msgID, err, msg.data)
			continue
		}
		outs = append(outs, o)
		first, again := effects[o]
		switch {
		case ids[msg.msgID]:
			r.duplicates++
			r.note("%s stored again at stream sequence %d", msg.msgID, msg.seq)
		case !want[o] || !idOK(msg.msgID):
			r.unexpected++
			r.note("unexpected output %s with id %q at stream sequence %d", msg.data, msg.msgID, msg.seq)
		case again:
			r.sameEffect++
			r.note("%s carries the payload of %s: %s", msg.msgID, first, msg.data)
		}
		ids[msg.msgID] = true
		if !again {
			effects[o] = msg.msgID
		}
	}
	for o := range want {
		if _, ok := effects[o]; !ok {
			r.lost++
			r.note("lost the model's %+v", o)
		}
	}
	return r, outs
}

// decodeOutput reads one sum2 output, refusing anything else.
func decodeOutput(data []byte) (sumOutput, error) {
	var o sumOutput
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return o, fmt.Errorf("not a sum2 output: %w", err)
	}
	if dec.More() {
		return o, fmt.Errorf("not a sum2 output: data after the JSON object")
	}
	return o, nil
}

func (r *outputReport) note(format string, args ...any) {
	if len(r.examples) < 10 {
		r.examples = append(r.examples, fmt.Sprintf(format, args...))
	}
}

func (r outputReport) ok() bool {
	return r.lost == 0 && r.duplicates == 0 && r.unexpected == 0 && r.differing == 0 && r.undecodable == 0 && r.sameEffect == 0
}

func (r outputReport) String() string {
	return fmt.Sprintf("%d stored: %d lost, %d duplicates, %d unexpected, %d differ from the model, %d undecodable, %d repeat another id's payload",
		r.stored, r.lost, r.duplicates, r.unexpected, r.differing, r.undecodable, r.sameEffect)
}

// require fails the test unless every expected output is stored exactly
// once with the model's payload, and nothing else is.
func (r outputReport) require(t *testing.T, what string) {
	t.Helper()
	if !r.ok() {
		t.Errorf("%s: outputs: %s\n%s", what, r, indent(r.examples))
	}
}

func indent(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("  ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
