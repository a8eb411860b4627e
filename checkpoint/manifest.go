package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// ManifestFormatVersion is the manifest format this package writes; it reads
// this one and every version down to minManifestFormatVersion. A manifest
// with another version is refused with ErrIncompatible: guessing
// at the meaning of a newer manifest could restore the wrong cut.
const ManifestFormatVersion = 3

// minManifestFormatVersion is the oldest manifest format this package
// reads: version 2 differs from 3 only by the absence of state_versions.
const minManifestFormatVersion = 2

// readableManifestVersion reports a format version this package reads.
func readableManifestVersion(v int) bool {
	return v >= minManifestFormatVersion && v <= ManifestFormatVersion
}

var (
	// ErrCorruptManifest: a manifest is truncated, not JSON, has unknown
	// fields or fails validation. Restore from an older retained checkpoint
	// only as an explicit choice.
	ErrCorruptManifest = errors.New("checkpoint: corrupt manifest")
	// ErrIncompatible: a manifest was written in a format this build does not
	// read. Use the wasmstream version that wrote it.
	ErrIncompatible = errors.New("checkpoint: incompatible manifest format")
)

// Manifest describes one completed checkpoint: the consistent cut (source
// positions and operator state files) and everything a restore must check
// before trusting it (module hash, ABI and state format versions).
type Manifest struct {
	// FormatVersion is ManifestFormatVersion; Write fills it.
	FormatVersion int `json:"format_version"`
	// ID is the checkpoint id, 1, 2, ... (the barrier id).
	ID uint64 `json:"id"`
	// Created is when the coordinator triggered the checkpoint.
	Created time.Time `json:"created"`
	// Completed is when the manifest was written; Write fills it if zero.
	Completed time.Time `json:"completed"`
	// Sources are the positions at which each source injected the barrier.
	Sources []SourcePosition `json:"sources"`
	// Operators describe each stateful operator whose state is in the cut.
	Operators []OperatorEntry `json:"operators"`
	// Files lists every file of the checkpoint directory except the
	// manifest itself, sorted by path; Write fills it.
	Files []FileEntry `json:"files"`
	// Config is the effective pipeline configuration of the run, as text,
	// so a restore can show what produced the state.
	Config string `json:"config"`
	// Metrics are measurements of the checkpoint, for monitoring only.
	Metrics Metrics `json:"metrics"`
	// Checksum is the hex SHA-256 of the manifest's encoding with Checksum
	// empty; Encode fills it. With it a flipped bit anywhere in the manifest
	// is detected, also one that leaves valid JSON (a digit of a position).
	Checksum string `json:"checksum"`
}

// SourcePosition is where one source stood in its stream at the barrier:
// a restore resumes it at LastSequence+1 after checking the stream identity.
type SourcePosition struct {
	// Name is the source's name in the pipeline.
	Name string `json:"name"`
	// Stream is the JetStream stream name.
	Stream string `json:"stream"`
	// StreamCreated identifies the stream instance: a recreated stream with
	// the same name has another creation time.
	StreamCreated time.Time `json:"stream_created"`
	// LastSequence is the stream sequence of the last record emitted before
	// the barrier; 0 if none.
	LastSequence uint64 `json:"last_sequence"`
}

// OperatorEntry is the version and key-group layout of one operator's state.
type OperatorEntry struct {
	// Name is the operator's name (the state key prefix, 1..255 bytes).
	Name string `json:"name"`
	// ModuleSHA256 is the lowercase hex SHA-256 of the operator's module:
	// the operator version.
	ModuleSHA256 string `json:"module_sha256"`
	// ABIVersion is the ABI version the module declared.
	ABIVersion uint32 `json:"abi_version"`
	// StateFormatVersion is the state format of the keys and values.
	StateFormatVersion uint32 `json:"state_format_version"`
	// MaxParallelism is the number of key groups, 1..32768.
	MaxParallelism int `json:"max_parallelism"`
	// StateVersion is the state version the operator's config declared
	// (empty if none). A restore with another module is allowed without an
	// explicit override when both declare the same non-empty StateVersion.
	StateVersion string `json:"state_version,omitempty"`
	// StateVersions are the versions the module declared for its named
	// states (ABI 1.1 state_declare; format 3). A state not listed has
	// version 1. An upgrade compares them with the new module's to decide
	// which states need its ws_migrate.
	StateVersions map[string]int32 `json:"state_versions,omitempty"`
	// Tasks are the tasks at the barrier, in task order; their key-group
	// ranges partition [0, MaxParallelism).
	Tasks []TaskEntry `json:"tasks"`
}

// TaskEntry is one task of an operator in the cut: its key-group range, how
// far its snapshot has consumed each input, and its measurements.
type TaskEntry struct {
	KeyGroupRange
	// Inputs maps each input source's name to the last stream sequence whose
	// record (if routed to this task) is in the snapshot. After an aligned
	// barrier it equals the source's LastSequence; an unaligned snapshot may
	// be behind on the inputs whose barrier had not arrived: a restore replays
	// those records to the key groups of this range only (the replayable
	// form of the channel state).
	Inputs map[string]uint64 `json:"inputs,omitempty"`
	// PauseNanos is the longest single stop of processing the task's
	// snapshot caused (TaskReport.Pause): its cut, a step of its
	// incremental flush, or a forced finish of the flush.
	PauseNanos int64 `json:"pause_ns"`
	// AlignmentNanos is the time from the task's first barrier to its snapshot.
	AlignmentNanos int64 `json:"alignment_ns"`
	// Unaligned is true when the snapshot was taken before every input's
	// barrier arrived (unaligned mode, or an alignment timeout).
	Unaligned bool `json:"unaligned,omitempty"`
}

// KeyGroupRange is the half-open key-group range [Start, End) of one task.
type KeyGroupRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// FileEntry is one file of a checkpoint directory.
type FileEntry struct {
	// Path is relative to the checkpoint directory, slash-separated.
	Path string `json:"path"`
	// Size is the file's length in bytes.
	Size int64 `json:"size"`
	// SHA256 is the lowercase hex SHA-256 of the file's content.
	SHA256 string `json:"sha256"`
}

// Metrics are measurements of one checkpoint.
type Metrics struct {
	// DurationNanos is the time from trigger to completion.
	DurationNanos int64 `json:"duration_ns"`
	// AlignmentNanos is the longest barrier alignment of any task.
	AlignmentNanos int64 `json:"alignment_ns"`
	// BytesTotal is the sum of Files sizes; Write fills it.
	BytesTotal int64 `json:"bytes_total"`
	// BytesNew counts the bytes of files that the previous completed
	// checkpoint did not hold (same path and hash); Write fills it.
	BytesNew int64 `json:"bytes_new"`
	// MaxPauseNanos is the longest processing pause of any task.
	MaxPauseNanos int64 `json:"max_pause_ns"`
	// Mode is "aligned" or "unaligned": unaligned when any task snapshotted
	// before all its barriers arrived.
	Mode string `json:"mode,omitempty"`
	// Recovery describes the restore the run that wrote this checkpoint
	// started from; nil for a run that started from empty state.
	Recovery *RecoveryMetrics `json:"recovery,omitempty"`
}

// RecoveryMetrics measure one restore.
type RecoveryMetrics struct {
	// FromCheckpoint is the id of the checkpoint restored.
	FromCheckpoint uint64 `json:"from_checkpoint"`
	// DurationNanos is the time from start to sources positioned: verify,
	// copy the state, compile and start the tasks.
	DurationNanos int64 `json:"duration_ns"`
	// RecordsReplayed counts records delivered again after the restore up to
	// this checkpoint: those at or below the stream's last sequence at
	// restore time (an upper bound of the records a crashed run had seen).
	RecordsReplayed uint64 `json:"records_replayed"`
}

// Encode validates m and returns its JSON form, with Checksum filled.
func Encode(m Manifest) ([]byte, error) {
	_, data, err := encodeSummed(m)
	return data, err
}

// encodeSummed is Encode also returning m with its Checksum filled.
func encodeSummed(m Manifest) (Manifest, []byte, error) {
	if !readableManifestVersion(m.FormatVersion) {
		return m, nil, fmt.Errorf("%w: manifest of checkpoint %d: format_version %d, this build writes %d",
			ErrIncompatible, m.ID, m.FormatVersion, ManifestFormatVersion)
	}
	if err := m.validate(); err != nil {
		return m, nil, fmt.Errorf("%w: checkpoint %d: %v", ErrCorruptManifest, m.ID, err)
	}
	sum, err := m.checksum()
	if err != nil {
		return m, nil, fmt.Errorf("%w: checkpoint %d: %v", ErrCorruptManifest, m.ID, err)
	}
	m.Checksum = sum
	data, err := marshalManifest(m)
	return m, data, err
}

// checksum returns the hex SHA-256 of m's encoding without a checksum.
func (m Manifest) checksum() (string, error) {
	m.Checksum = ""
	b, err := marshalManifest(m)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), nil
}

func marshalManifest(m Manifest) ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Decode parses and validates a manifest. The format version is checked
// first, so a newer manifest reports ErrIncompatible rather than a confusing
// field error; anything else wrong is ErrCorruptManifest, including bytes
// that differ from what Encode writes for the decoded manifest or a checksum
// that does not match.
func Decode(data []byte) (Manifest, error) {
	var probe struct {
		FormatVersion *int `json:"format_version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return Manifest{}, fmt.Errorf("%w: %v", ErrCorruptManifest, err)
	}
	if probe.FormatVersion == nil {
		return Manifest{}, fmt.Errorf("%w: format_version missing", ErrCorruptManifest)
	}
	if v := *probe.FormatVersion; !readableManifestVersion(v) {
		return Manifest{}, fmt.Errorf("%w: format_version %d, this build reads %d to %d",
			ErrIncompatible, v, minManifestFormatVersion, ManifestFormatVersion)
	}
	m, err := decodeStrict(data)
	if err != nil {
		return Manifest{}, fmt.Errorf("%w: %v", ErrCorruptManifest, err)
	}
	if err := m.validate(); err != nil {
		return Manifest{}, fmt.Errorf("%w: checkpoint %d: %v", ErrCorruptManifest, m.ID, err)
	}
	if err := m.checkIntegrity(data); err != nil {
		return Manifest{}, fmt.Errorf("%w: checkpoint %d: %v", ErrCorruptManifest, m.ID, err)
	}
	return m, nil
}

// checkIntegrity compares the checksum and the exact bytes with what Encode
// writes for m.
func (m Manifest) checkIntegrity(data []byte) error {
	sum, err := m.checksum()
	if err != nil {
		return err
	}
	if sum != m.Checksum {
		return fmt.Errorf("checksum mismatch: the manifest says %q, its content hashes to %s (the file was changed or damaged)", m.Checksum, sum)
	}
	canonical, err := marshalManifest(m)
	if err != nil {
		return err
	}
	if !bytes.Equal(canonical, data) {
		return errors.New("the bytes differ from the manifest's canonical encoding (the file was changed or damaged)")
	}
	return nil
}

// decodeStrict refuses unknown fields and trailing data: both mean the bytes
// are not what this version wrote.
func decodeStrict(data []byte) (Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return Manifest{}, errors.New("trailing data after the manifest object")
	}
	return m, nil
}
