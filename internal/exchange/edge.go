package exchange

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SubjectRoot is the first tokens of every exchange subject. Declared streams must not capture
// it: the engine owns it (FORMAT.md §2).
const SubjectRoot = "wasmstream.x"

// StreamPrefix starts the name of every exchange stream.
const StreamPrefix = "WS_X_"

// MaxKeyGroups is the most key groups a consumer can have: state.MaxMaxParallelism.
const MaxKeyGroups = 32768

// maxStreamName is JetStream's limit on a stream name (nats-server JSMaxNameLen).
const maxStreamName = 255

// ErrInvalidEdge is the cause of the errors Edge.Validate returns.
var ErrInvalidEdge = errors.New("exchange: invalid edge")

// Edge is one edge between operators of a pipeline: Consumer reads Producer's guest output
// Output. Each edge has a stream of its own, partitioned by the consumer's key groups.
type Edge struct {
	// Pipeline is the pipeline's name: [a-z0-9_-]+.
	Pipeline string
	// Producer and Consumer are operator names: [A-Za-z0-9_-]+.
	Producer, Consumer string
	// Output is the producer's guest output name: 1 to 255 bytes, any bytes.
	Output string
}

// RouteOutput is the output name of a router's edges (FORMAT.md §2.1): a router is named like
// the source it reads, which no operator shares a name with, so its edges never meet an
// operator's.
const RouteOutput = "route"

// RouteEdge is the edge on which the router of source carries its records to consumer.
func RouteEdge(pipeline, source, consumer string) Edge {
	return Edge{Pipeline: pipeline, Producer: source, Output: RouteOutput, Consumer: consumer}
}

// Validate reports an edge whose names cannot form a stream name and subjects.
func (e Edge) Validate() error {
	switch {
	case !validName(e.Pipeline):
		return fmt.Errorf("%w: pipeline name %q is not [A-Za-z0-9_-]+", ErrInvalidEdge, e.Pipeline)
	case !validName(e.Producer):
		return fmt.Errorf("%w: producer %q is not an operator name ([A-Za-z0-9_-]+)", ErrInvalidEdge, e.Producer)
	case !validName(e.Consumer):
		return fmt.Errorf("%w: consumer %q is not an operator name ([A-Za-z0-9_-]+)", ErrInvalidEdge, e.Consumer)
	case len(e.Output) < 1 || len(e.Output) > 255:
		return fmt.Errorf("%w: output name of %d bytes; it must have 1 to 255", ErrInvalidEdge, len(e.Output))
	case len(e.StreamName()) > maxStreamName:
		return fmt.Errorf("%w: stream name %s is longer than JetStream's %d bytes; shorten the pipeline or operator names",
			ErrInvalidEdge, e.StreamName(), maxStreamName)
	}
	return nil
}

// String names the edge as the config writes it: "enrich.out -> score".
func (e Edge) String() string { return e.Producer + "." + e.Output + " -> " + e.Consumer }

// Token is the edge's subject token: producer, consumer and a hash of the whole edge, so that
// two outputs of one producer read by one consumer, or names that join alike, stay apart
// (FORMAT.md §2).
func (e Edge) Token() string { return e.Producer + "_" + e.Consumer + "_" + e.hash() }

// hash is the first 8 hex digits of SHA-256 over the length-prefixed pipeline, producer, output
// and consumer.
func (e Edge) hash() string {
	h := sha256.New()
	for _, s := range []string{e.Pipeline, e.Producer, e.Output, e.Consumer} {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil)[:4])
}

// StreamName is the name of the edge's stream: WS_X_<pipeline>_<token>.
func (e Edge) StreamName() string { return StreamPrefix + e.Pipeline + "_" + e.Token() }

// subjectBase is <root>.<pipeline>.<token>, the subjects' common prefix.
func (e Edge) subjectBase() string { return SubjectRoot + "." + e.Pipeline + "." + e.Token() }

// Subject is where records (and markers) of the consumer's key group kg are published:
// wasmstream.x.<pipeline>.<token>.<kg>, kg in decimal.
func (e Edge) Subject(kg int) string { return e.subjectBase() + "." + strconv.Itoa(kg) }

// StreamSubject is the one subject the edge's stream captures: every key group's.
func (e Edge) StreamSubject() string { return e.subjectBase() + ".*" }

// KeyGroupOf returns the key group of a subject of the edge among keyGroups, or false when the
// subject is not one of the edge's key-group subjects.
func (e Edge) KeyGroupOf(subject string, keyGroups int) (int, bool) {
	rest, ok := strings.CutPrefix(subject, e.subjectBase()+".")
	if !ok || rest == "" || (len(rest) > 1 && rest[0] == '0') {
		return 0, false
	}
	kg, err := strconv.Atoi(rest)
	if err != nil || kg < 0 || kg >= keyGroups {
		return 0, false
	}
	return kg, true
}

// FilterSubjects are the filters of the one ordered consumer of a consumer task owning key
// groups [start, end) of keyGroups: one subject per key group, or the stream's subject when the
// task owns them all.
func (e Edge) FilterSubjects(start, end, keyGroups int) ([]string, error) {
	if start < 0 || start >= end || end > keyGroups || keyGroups > MaxKeyGroups {
		return nil, fmt.Errorf("%w: key groups [%d, %d) of %d", ErrInvalidEdge, start, end, keyGroups)
	}
	if start == 0 && end == keyGroups {
		return []string{e.StreamSubject()}, nil
	}
	out := make([]string, 0, end-start)
	for kg := start; kg < end; kg++ {
		out = append(out, e.Subject(kg))
	}
	return out, nil
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
