package global

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/cluster/ship"
)

// PutAck stores a's encoding as its AckObject and returns the object and
// the SHA-256 of its bytes, for the worker's reply to the coordinator.
func PutAck(ctx context.Context, obs jetstream.ObjectStore, a Ack) (object, sum string, err error) {
	data, err := EncodeAck(a)
	if err != nil {
		return "", "", err
	}
	object = AckObject(a.Checkpoint, a.Generation, a.Assignment, a.Worker)
	return object, hexSum(data), put(ctx, obs, object, data)
}

// ReadAck reads and decodes the ack object; with wantSHA256 (from the
// worker's reply) its bytes must hash to it.
func ReadAck(ctx context.Context, obs jetstream.ObjectStore, object, wantSHA256 string) (Ack, error) {
	data, err := read(ctx, obs, object, wantSHA256)
	if err != nil {
		return Ack{}, err
	}
	a, err := DecodeAck(data)
	if err != nil {
		return Ack{}, fmt.Errorf("object %s: %w", object, err)
	}
	return a, nil
}

// PutManifest stores m's encoding as its ManifestObject and returns the
// object and the SHA-256 of its bytes, for the completion record
// (ctlrec.Completed), which is written after it: the commit point.
func PutManifest(ctx context.Context, obs jetstream.ObjectStore, m Manifest) (object, sum string, err error) {
	data, err := EncodeManifest(m)
	if err != nil {
		return "", "", err
	}
	object = ManifestObject(m.ID(), m.Generation)
	return object, hexSum(data), put(ctx, obs, object, data)
}

// ReadManifest reads and decodes the global manifest object; with
// wantSHA256 (from the completion record) its bytes must hash to it.
func ReadManifest(ctx context.Context, obs jetstream.ObjectStore, object, wantSHA256 string) (Manifest, error) {
	data, err := read(ctx, obs, object, wantSHA256)
	if err != nil {
		return Manifest{}, err
	}
	m, err := DecodeManifest(data)
	if err != nil {
		return Manifest{}, fmt.Errorf("object %s: %w", object, err)
	}
	return m, nil
}

func put(ctx context.Context, obs jetstream.ObjectStore, object string, data []byte) error {
	return attempts(ctx, func(ctx context.Context) error {
		if _, err := obs.PutBytes(ctx, object, data); err != nil {
			return fmt.Errorf("%w: put %s: %w", ship.ErrObjectStore, object, err)
		}
		return nil
	})
}

// read returns the bytes of object, at most MaxRecordBytes, checking
// their SHA-256 against want when given.
func read(ctx context.Context, obs jetstream.ObjectStore, object, want string) ([]byte, error) {
	var data []byte
	err := attempts(ctx, func(ctx context.Context) (err error) {
		data, err = readOnce(ctx, obs, object, want)
		return err
	})
	return data, err
}

func readOnce(ctx context.Context, obs jetstream.ObjectStore, object, want string) ([]byte, error) {
	res, err := obs.Get(ctx, object)
	switch {
	case errors.Is(err, jetstream.ErrObjectNotFound):
		return nil, fmt.Errorf("%w: object %s is not in the bucket; restore from another checkpoint", ship.ErrMissingObject, object)
	case err != nil:
		return nil, fmt.Errorf("%w: get %s: %w", ship.ErrObjectStore, object, err)
	}
	defer res.Close()
	data, err := io.ReadAll(io.LimitReader(res, MaxRecordBytes+1))
	switch {
	case errors.Is(err, jetstream.ErrDigestMismatch):
		return nil, fmt.Errorf("%w: object %s fails the Object Store's digest check; restore from another checkpoint", ship.ErrDamaged, object)
	case err != nil:
		return nil, fmt.Errorf("%w: read %s: %w", ship.ErrObjectStore, object, err)
	case len(data) > MaxRecordBytes:
		return nil, fmt.Errorf("%w: object %s has more than %d bytes; it is no cluster checkpoint record", ErrCorrupt, object, MaxRecordBytes)
	}
	if got := hexSum(data); want != "" && got != want {
		return nil, fmt.Errorf("%w: object %s hashes to %s, its reference says %s; restore from another checkpoint", ship.ErrDamaged, object, got, want)
	}
	return data, nil
}

func hexSum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// An object's read stalls for good when the stream's leader dies while it
// is read (its ordered consumer is gone), and a put may wait for acks a
// dead leader never sends: each attempt runs under its own deadline, and
// an outage is tried again, so that a worker restoring its tasks (or a
// coordinator collecting acks) goes on once a new leader is elected.
const (
	storeAttempts   = 4
	storeRetryPause = 500 * time.Millisecond
)

// storeAttemptTimeout bounds one attempt (a var for tests).
var storeAttemptTimeout = 15 * time.Second

// attempts runs op until it succeeds, fails on an answer another attempt
// cannot change (a missing, damaged or corrupt object), ctx ends, or
// storeAttempts attempts of storeAttemptTimeout each have failed.
func attempts(ctx context.Context, op func(context.Context) error) error {
	var err error
	for attempt := 1; attempt <= storeAttempts; attempt++ {
		actx, cancel := context.WithTimeout(ctx, storeAttemptTimeout)
		err = op(actx)
		cancel()
		if err == nil || ctx.Err() != nil || !errors.Is(err, ship.ErrObjectStore) {
			return err
		}
		if attempt < storeAttempts {
			select {
			case <-time.After(storeRetryPause):
			case <-ctx.Done():
				return err
			}
		}
	}
	return fmt.Errorf("%d attempts of %s each: %w", storeAttempts, storeAttemptTimeout, err)
}
