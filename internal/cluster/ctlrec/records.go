package ctlrec

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Version is the records' format version.
const Version = 1

// Keys of the records in the control bucket.
const (
	PendingKey = "checkpoint.pending"
	LatestKey  = "checkpoint.latest"
)

// CompletedKey is the key of checkpoint n's completion record.
func CompletedKey(n uint64) string { return "checkpoint." + strconv.FormatUint(n, 10) }

// ErrRecord: a record that is not one this version writes.
var ErrRecord = errors.New("invalid checkpoint record")

// Pending is the claim of the checkpoint in progress.
type Pending struct {
	Version    int    `json:"version"`
	Checkpoint uint64 `json:"checkpoint"`
	// Generation is the coordinator lease's generation that claimed it.
	Generation uint64 `json:"generation"`
	// Assignment is the assignment epoch the workers snapshot under.
	Assignment uint64 `json:"assignment"`
	Final      bool   `json:"final,omitempty"`
}

// Completed records a completed checkpoint: where its global manifest is.
type Completed struct {
	Version    int    `json:"version"`
	Checkpoint uint64 `json:"checkpoint"`
	Generation uint64 `json:"generation"`
	Assignment uint64 `json:"assignment"`
	// Manifest is the Object Store object of the global manifest, SHA256
	// the hex SHA-256 of its bytes.
	Manifest string `json:"manifest"`
	SHA256   string `json:"sha256"`
}

func (p Pending) check() error {
	return checkIDs(p.Version, p.Checkpoint, p.Generation, p.Assignment)
}

func (c Completed) check() error {
	if err := checkIDs(c.Version, c.Checkpoint, c.Generation, c.Assignment); err != nil {
		return err
	}
	if c.Manifest == "" {
		return fmt.Errorf("%w: checkpoint %d names no manifest object", ErrRecord, c.Checkpoint)
	}
	if sum, err := hex.DecodeString(c.SHA256); err != nil || len(sum) != 32 {
		return fmt.Errorf("%w: checkpoint %d: sha256 %q is not 64 hex digits", ErrRecord, c.Checkpoint, c.SHA256)
	}
	return nil
}

func checkIDs(version int, n, gen, epoch uint64) error {
	switch {
	case version != Version:
		return fmt.Errorf("%w: version %d, this wasmstream reads %d", ErrRecord, version, Version)
	case n == 0 || gen == 0 || epoch == 0:
		return fmt.Errorf("%w: checkpoint %d, generation %d, assignment %d: each must be at least 1", ErrRecord, n, gen, epoch)
	}
	return nil
}

// DecodePending reads a pending record, refusing unknown fields and
// records that break its rules.
func DecodePending(data []byte) (Pending, error) {
	var p Pending
	if err := decodeStrict(data, &p); err != nil {
		return Pending{}, err
	}
	return p, p.check()
}

// DecodeCompleted reads a completion record like DecodePending.
func DecodeCompleted(data []byte) (Completed, error) {
	var c Completed
	if err := decodeStrict(data, &c); err != nil {
		return Completed{}, err
	}
	return c, c.check()
}

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %w", ErrRecord, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: data after the record", ErrRecord)
	}
	return nil
}
