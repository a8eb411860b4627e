package ship

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// UploadResult reports what an Upload stored.
type UploadResult struct {
	// Manifest is the uploaded task manifest; ManifestObject its object
	// and ManifestSHA256 the SHA-256 of its bytes, for the worker manifest
	// that references it.
	Manifest       TaskManifest
	ManifestObject string
	ManifestSHA256 string
	// FilesTotal and BytesTotal count the checkpoint's files; FilesUploaded
	// and BytesUploaded the objects this Upload stored (the rest were in the
	// bucket already). Equal files within one checkpoint count once as
	// uploaded. The manifest itself is not counted.
	FilesTotal, FilesUploaded int
	BytesTotal, BytesUploaded int64
}

// Upload stores the files of snap as content-addressed objects
// (ObjectName), skipping those the bucket already holds, then its task
// manifest as manifestObject. Only once Upload returned is the task
// checkpoint complete in the bucket: the manifest is written last.
//
// A file is looked up in the local index, then with GetInfo; an object
// found with another size or digest (damaged) is overwritten. Each file
// is hashed again while it is uploaded, and one that changed since
// Snapshot is removed from the bucket and reported (ErrDamaged): an object
// must hold the bytes its name says.
func (s *Shipper) Upload(ctx context.Context, snap Snapshot, manifestObject string) (UploadResult, error) {
	if err := s.validManifestObject(manifestObject); err != nil {
		return UploadResult{}, err
	}
	res := UploadResult{Manifest: snap.Manifest, ManifestObject: manifestObject, FilesTotal: len(snap.Manifest.Files)}
	done := map[string]bool{}
	for _, f := range snap.Manifest.Files {
		res.BytesTotal += f.Size
		if done[f.SHA256] {
			continue
		}
		done[f.SHA256] = true
		stored, err := s.ensureObject(ctx, filepath.Join(snap.Dir, f.Path), f)
		if err != nil {
			return UploadResult{}, err
		}
		if stored {
			res.FilesUploaded++
			res.BytesUploaded += f.Size
		}
	}
	m, sum, err := s.putManifest(ctx, snap.Manifest, manifestObject)
	res.Manifest, res.ManifestSHA256 = m, sum
	return res, err
}

// validManifestObject keeps manifests out of the content-addressed names.
func (s *Shipper) validManifestObject(name string) error {
	if name == "" || strings.HasPrefix(name, ObjectPrefix) {
		return fmt.Errorf("%w: manifest object %q in bucket %s: give a name outside %q, e.g. ckpt/<N>-g<G>/w-<worker>-a<A>/<operator>-<start>.json",
			ErrInvalid, name, s.bucket, ObjectPrefix)
	}
	return nil
}

// ensureObject makes the bucket hold f's object, uploading file when it
// does not; it reports whether it uploaded.
func (s *Shipper) ensureObject(ctx context.Context, file string, f File) (bool, error) {
	if s.indexed(f.SHA256) {
		return false, nil
	}
	name := ObjectName(f.SHA256)
	var info *jetstream.ObjectInfo
	err := s.retryPut(ctx, 0, func(ctx context.Context) (err error) {
		info, err = s.obs.GetInfo(ctx, name)
		if errors.Is(err, jetstream.ErrObjectNotFound) {
			return errLocal{err} // an answer: nothing to retry
		}
		return err
	})
	switch {
	case err == nil && holds(info, f):
		return false, s.indexError(f, s.addIndex(f.SHA256))
	case err != nil && !errors.Is(err, jetstream.ErrObjectNotFound):
		return false, fmt.Errorf("%w: look up object %s in bucket %s: %w", ErrObjectStore, name, s.bucket, err)
	}
	if err := s.put(ctx, file, f); err != nil {
		return false, err
	}
	return true, s.indexError(f, s.addIndex(f.SHA256))
}

func (s *Shipper) indexError(f File, err error) error {
	if err != nil {
		return fmt.Errorf("ship: record object %s in the index %s: %w", ObjectName(f.SHA256), s.opts.IndexDir, err)
	}
	return nil
}

// holds reports whether info is a live object with f's size and SHA-256.
func holds(info *jetstream.ObjectInfo, f File) bool {
	if info.Deleted || int64(info.Size) != f.Size {
		return false
	}
	got, err := jetstream.DecodeObjectDigest(info.Digest)
	want, _ := hex.DecodeString(f.SHA256)
	return err == nil && bytes.Equal(got, want)
}

// put uploads file as f's object, hashing it on the way.
func (s *Shipper) put(ctx context.Context, file string, f File) error {
	name := ObjectName(f.SHA256)
	var info *jetstream.ObjectInfo
	var got string
	err := s.retryPut(ctx, f.Size, func(ctx context.Context) error {
		r, err := os.Open(file)
		if err != nil {
			return fmt.Errorf("ship: upload %s as object %s: %w", file, name, errLocal{err})
		}
		defer r.Close()
		h := sha256.New()
		info, err = s.obs.Put(ctx, jetstream.ObjectMeta{Name: name}, io.TeeReader(r, h))
		got = hex.EncodeToString(h.Sum(nil))
		return err
	})
	if err != nil {
		return fmt.Errorf("%w: put object %s (file %s) in bucket %s: %w", ErrObjectStore, name, file, s.bucket, err)
	}
	if got != f.SHA256 || int64(info.Size) != f.Size {
		return s.changedWhileUploading(ctx, file, f, got)
	}
	return nil
}

// putAttempts is how often an object is put before the upload fails:
// a put that timed out across a leader election succeeds on the new one.
const putAttempts = 3

// retryPut runs put (a put or a look-up of an object), each attempt
// under its own deadline (putDeadline): nats.go's object Put waits for
// the acks of its chunks until its context ends, and an ack lost with a
// leader (a SIGKILLed node) never comes, so without a deadline of its own
// one put could hold a checkpoint for as long as the caller's context
// lasts; a look-up likewise. Putting an object again is harmless: the
// same name gets the same bytes. An errLocal is not retried.
func (s *Shipper) retryPut(ctx context.Context, size int64, put func(context.Context) error) error {
	var err error
	for attempt := 1; attempt <= putAttempts; attempt++ {
		pctx, cancel := context.WithTimeout(ctx, s.putDeadline(size))
		err = put(pctx)
		cancel()
		var local errLocal
		if err == nil || ctx.Err() != nil || errors.As(err, &local) {
			return err
		}
		if attempt < putAttempts {
			select {
			case <-time.After(500 * time.Millisecond):
			case <-ctx.Done():
				return err
			}
		}
	}
	return fmt.Errorf("%d attempts of %s each: %w", putAttempts, s.putDeadline(size), err)
}

// putDeadline is PutTimeout plus a second per MiB.
func (s *Shipper) putDeadline(size int64) time.Duration {
	return s.opts.PutTimeout + time.Duration(size>>20)*time.Second
}

// errLocal marks a failure another attempt cannot mend: of the local side
// (the file), or an answer (a missing or damaged object).
type errLocal struct{ error }

func (e errLocal) Unwrap() error { return e.error }

// changedWhileUploading removes an object whose bytes are not its name's.
func (s *Shipper) changedWhileUploading(ctx context.Context, file string, f File, got string) error {
	name := ObjectName(f.SHA256)
	derr := s.obs.Delete(ctx, name)
	err := fmt.Errorf("%w: file %s hashed to %s at the snapshot and to %s while it was uploaded as object %s of bucket %s; the local disk changed it, take a new snapshot",
		ErrDamaged, file, f.SHA256, got, name, s.bucket)
	if derr != nil {
		err = errors.Join(err, fmt.Errorf("%w: delete the wrong object %s: %w; delete it by hand", ErrObjectStore, name, derr))
	}
	return err
}

// putManifest encodes m and stores it; it returns m as stored (with its
// checksum) and the bytes' SHA-256.
func (s *Shipper) putManifest(ctx context.Context, m TaskManifest, object string) (TaskManifest, string, error) {
	m, data, err := encodeSummed(m)
	if err != nil {
		return m, "", err
	}
	err = s.retryPut(ctx, int64(len(data)), func(ctx context.Context) error {
		_, err := s.obs.PutBytes(ctx, object, data)
		return err
	})
	if err != nil {
		return m, "", fmt.Errorf("%w: put task manifest %s in bucket %s: %w", ErrObjectStore, object, s.bucket, err)
	}
	h := sha256.Sum256(data)
	return m, hex.EncodeToString(h[:]), nil
}
