package global

import (
	"errors"
	"fmt"
	"maps"

	"github.com/wasmstream/wasmstream/checkpoint"
)

// AckFormatVersion is the ack format this package writes and the only one
// it reads.
const AckFormatVersion = 1

// Ack is one worker's report of checkpoint N: the positions of its
// sources and the task parts it uploaded (design §5.3 step 3, the worker
// manifest w-<id>-a<A>.json). The coordinator assembles the acks of one
// N, G and A into the global Manifest.
type Ack struct {
	// FormatVersion is AckFormatVersion; EncodeAck fills it.
	FormatVersion int `json:"format_version"`
	// Checkpoint, Generation and Assignment are the N, G and A of the
	// trigger the worker answered; each is at least 1.
	Checkpoint uint64 `json:"checkpoint"`
	Generation uint64 `json:"generation"`
	Assignment uint64 `json:"assignment"`
	// Worker is the worker's id.
	Worker string `json:"worker"`
	// Sources are where the worker's sources injected barrier N.
	Sources []checkpoint.SourcePosition `json:"sources"`
	// Operators describe the operators of the worker's tasks.
	Operators []OperatorInfo `json:"operators"`
	// Tasks are the worker's task parts.
	Tasks []TaskPart `json:"tasks"`
	// DurationNanos is the worker's time from trigger to upload done.
	DurationNanos int64 `json:"duration_ns"`
	// Checksum is the hex SHA-256 of the encoding with Checksum empty;
	// EncodeAck fills it.
	Checksum string `json:"checksum"`
}

func (a *Ack) checksumField() *string { return &a.Checksum }

// EncodeAck validates a and returns its JSON with FormatVersion and
// Checksum filled in. DecodeAck accepts exactly these bytes.
func EncodeAck(a Ack) ([]byte, error) {
	a.FormatVersion = AckFormatVersion
	if err := a.validate(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, a.name(), err)
	}
	_, data, err := seal(a)
	return data, err
}

// DecodeAck parses an ack, which comes from the network and is not
// trusted: another format version is ErrIncompatible, anything else wrong
// ErrCorrupt.
func DecodeAck(data []byte) (Ack, error) {
	if err := checkVersion(data, "ack", AckFormatVersion); err != nil {
		return Ack{}, err
	}
	a, err := decodeStrict[Ack](data)
	if err == nil {
		err = a.validate()
	}
	if err == nil {
		err = checkSeal(a, data)
	}
	if err != nil {
		return Ack{}, fmt.Errorf("%w: %s: %v", ErrCorrupt, a.name(), err)
	}
	return a, nil
}

// name identifies the ack in messages.
func (a Ack) name() string {
	if a.Worker == "" && a.Checkpoint == 0 {
		return "ack" // nothing of it was read
	}
	return fmt.Sprintf("ack of worker %q for checkpoint %d (generation %d, assignment %d)", a.Worker, a.Checkpoint, a.Generation, a.Assignment)
}

// validate checks the rules one ack must keep on its own.
func (a Ack) validate() error {
	switch {
	case a.Checkpoint == 0 || a.Generation == 0 || a.Assignment == 0:
		return errors.New("checkpoint, generation and assignment must each be at least 1")
	case a.Worker == "":
		return errors.New("worker id missing")
	case a.DurationNanos < 0:
		return errors.New("negative duration")
	}
	if err := validateSources(a.Sources); err != nil {
		return err
	}
	infos, err := validateInfos(a.Operators)
	if err != nil {
		return err
	}
	return validateParts(a.Tasks, infos)
}

// validateSources requires named, identified sources, each once.
func validateSources(sources []checkpoint.SourcePosition) error {
	seen := map[string]bool{}
	for _, s := range sources {
		if s.Name == "" || s.Stream == "" || s.StreamCreated.IsZero() {
			return fmt.Errorf("source %q: name, stream or stream_created missing", s.Name)
		}
		if seen[s.Name] {
			return fmt.Errorf("source %q listed twice", s.Name)
		}
		seen[s.Name] = true
	}
	return nil
}

// equal compares infos, a nil map equal to an empty one (JSON drops both).
func (i OperatorInfo) equal(o OperatorInfo) bool {
	return i.Name == o.Name && i.ModuleSHA256 == o.ModuleSHA256 && i.ABIVersion == o.ABIVersion &&
		i.StateFormatVersion == o.StateFormatVersion && i.MaxParallelism == o.MaxParallelism &&
		i.StateVersion == o.StateVersion && maps.Equal(i.StateVersions, o.StateVersions)
}
