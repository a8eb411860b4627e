package ship

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/wasmstream/wasmstream/internal/state"
)

// ManifestFormatVersion is the task manifest format this package writes
// and the only one it reads: guessing at a newer manifest's meaning could
// import the wrong keys.
const ManifestFormatVersion = 1

// TaskManifest describes one uploaded task checkpoint: which state it holds
// and the objects that make up its Pebble checkpoint directory. It is
// stored as JSON (Encode) beside the worker manifest that lists it.
type TaskManifest struct {
	// FormatVersion is ManifestFormatVersion.
	FormatVersion int `json:"format_version"`
	// StateFormatVersion is the state format of the keys
	// (internal/state.FormatVersion at the snapshot).
	StateFormatVersion int `json:"state_format_version"`
	// Operator, MaxParallelism, Index and Start/End are the Task snapshotted.
	Operator       string `json:"operator"`
	MaxParallelism int    `json:"max_parallelism"`
	Index          int    `json:"task"`
	Start          int    `json:"start"`
	End            int    `json:"end"`
	// MetaNames are the operator's metadata entries shipped (Task.MetaNames).
	MetaNames []string `json:"meta_names"`
	// Spans are the key spans the checkpoint was restricted to, derived from
	// the fields above (lowercase hex keys). A restore reads inside them
	// only; the decoder refuses spans that differ from the derived ones.
	Spans []Span `json:"spans"`
	// Files lists every file of the Pebble checkpoint directory, sorted by
	// path; each is the object ObjectName(SHA256) of the bucket.
	Files []File `json:"files"`
	// Checksum is the hex SHA-256 of the encoding with Checksum empty, so
	// that a flipped bit that leaves valid JSON (a digit of a size) is
	// detected without a reference from elsewhere.
	Checksum string `json:"checksum"`
}

// Span is one key range [Start, End) of a task checkpoint, hex-encoded.
type Span struct {
	Kind  string `json:"kind"`
	Start string `json:"start"`
	End   string `json:"end"`
}

// File is one file of a task checkpoint directory and its object.
type File struct {
	// Path is the file's name in the checkpoint directory (Pebble
	// checkpoints are flat: no directories).
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Task returns the task the manifest describes.
func (m TaskManifest) Task() Task {
	return Task{Operator: m.Operator, MaxParallelism: m.MaxParallelism, Index: m.Index,
		Range: m.Range(), MetaNames: m.MetaNames}
}

// Range returns the manifest's key-group range.
func (m TaskManifest) Range() state.KeyGroupRange {
	return state.KeyGroupRange{Start: m.Start, End: m.End}
}

// Bytes returns the total size of the manifest's files.
func (m TaskManifest) Bytes() int64 {
	var n int64
	for _, f := range m.Files {
		n += f.Size
	}
	return n
}

// newManifest returns the manifest of a snapshot of t with files.
func newManifest(t Task, files []File) TaskManifest {
	m := TaskManifest{
		FormatVersion: ManifestFormatVersion, StateFormatVersion: state.FormatVersion,
		Operator: t.Operator, MaxParallelism: t.MaxParallelism, Index: t.Index,
		Start: t.Range.Start, End: t.Range.End, MetaNames: t.MetaNames, Files: files,
	}
	if m.MetaNames == nil {
		m.MetaNames = []string{}
	}
	m.Spans = encodeSpans(spansOf(t))
	return m
}

func encodeSpans(spans []keySpan) []Span {
	out := make([]Span, len(spans))
	for i, s := range spans {
		out[i] = Span{Kind: s.kind, Start: hex.EncodeToString(s.start), End: hex.EncodeToString(s.end)}
	}
	return out
}

// Encode returns m's JSON with its checksum filled in: two-space indented,
// newline-terminated. Decode accepts exactly these bytes.
func Encode(m TaskManifest) ([]byte, error) {
	_, data, err := encodeSummed(m)
	return data, err
}

// encodeSummed returns m with its checksum and its encoding.
func encodeSummed(m TaskManifest) (TaskManifest, []byte, error) {
	if m.MetaNames == nil {
		m.MetaNames = []string{} // null would not decode: one manifest, one encoding
	}
	sum, err := m.checksum()
	if err != nil {
		return m, nil, err
	}
	m.Checksum = sum
	data, err := marshal(m)
	return m, data, err
}

// checksum is the SHA-256 of the encoding with Checksum as it is (empty).
func (m TaskManifest) checksum() (string, error) {
	m.Checksum = ""
	data, err := marshal(m)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:]), nil
}

func marshal(m TaskManifest) ([]byte, error) {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("ship: encode task manifest: %w", err)
	}
	return append(data, '\n'), nil
}
