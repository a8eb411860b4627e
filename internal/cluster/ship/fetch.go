package ship

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/privatefs"
)

// FetchManifest reads and decodes the task manifest object. With
// wantSHA256 (from the worker manifest that lists it) the bytes must hash
// to it, else ErrDamaged.
func (s *Shipper) FetchManifest(ctx context.Context, object, wantSHA256 string) (TaskManifest, error) {
	data, err := s.readManifest(ctx, object)
	if err != nil {
		return TaskManifest{}, err
	}
	if sum := sha256.Sum256(data); wantSHA256 != "" && hex.EncodeToString(sum[:]) != wantSHA256 {
		return TaskManifest{}, fmt.Errorf("%w: task manifest %s in bucket %s hashes to %x, its reference says %s; restore from another checkpoint",
			ErrDamaged, object, s.bucket, sum, wantSHA256)
	}
	m, err := Decode(data)
	if err != nil {
		return TaskManifest{}, fmt.Errorf("task manifest %s in bucket %s: %w", object, s.bucket, err)
	}
	return m, nil
}

func (s *Shipper) readManifest(ctx context.Context, object string) ([]byte, error) {
	var data []byte
	err := s.retryPut(ctx, 0, func(ctx context.Context) error { // manifests are small
		res, err := s.get(ctx, object)
		if err != nil {
			return err
		}
		defer res.Close()
		if data, err = io.ReadAll(io.LimitReader(res, MaxManifestBytes+1)); err != nil {
			return s.readError(object, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(data) > MaxManifestBytes {
		return nil, fmt.Errorf("%w: object %s in bucket %s has more than %d bytes; it is no task manifest", ErrCorruptManifest, object, s.bucket, MaxManifestBytes)
	}
	return data, nil
}

// get opens an object, naming a missing one (an errLocal: no retry).
func (s *Shipper) get(ctx context.Context, object string) (jetstream.ObjectResult, error) {
	res, err := s.obs.Get(ctx, object)
	switch {
	case errors.Is(err, jetstream.ErrObjectNotFound):
		return nil, errLocal{fmt.Errorf("%w: object %s is not in bucket %s; restore from another checkpoint", ErrMissingObject, object, s.bucket)}
	case err != nil:
		return nil, fmt.Errorf("%w: get object %s from bucket %s: %w", ErrObjectStore, object, s.bucket, err)
	}
	return res, nil
}

// readError classifies an error while reading an object: the Object
// Store's own digest check is damage, anything else an outage.
func (s *Shipper) readError(object string, err error) error {
	if errors.Is(err, jetstream.ErrDigestMismatch) {
		return errLocal{fmt.Errorf("%w: object %s in bucket %s fails the Object Store's digest check; restore from another checkpoint", ErrDamaged, object, s.bucket)}
	}
	return fmt.Errorf("%w: read object %s from bucket %s: %w", ErrObjectStore, object, s.bucket, err)
}

// cached returns the cache file holding f's bytes, downloading it when the
// cache has no good copy, and how many bytes it downloaded. A cached file
// is hashed again before use: the cache is a local disk, and what a restore
// imports must be what the manifest says.
func (s *Shipper) cached(ctx context.Context, f File) (string, int64, error) {
	p := filepath.Join(s.opts.CacheDir, f.SHA256)
	if size, sum, err := hashFile(p); err == nil && size == f.Size && sum == f.SHA256 {
		return p, 0, nil
	}
	if err := s.download(ctx, f, p); err != nil {
		return "", 0, err
	}
	return p, f.Size, nil
}

// download writes f's object to p through a temporary file, checking its
// SHA-256 and size before the rename; each attempt under its own deadline
// (retryPut): an object read stalls for good when the stream's leader
// dies mid-read.
func (s *Shipper) download(ctx context.Context, f File, p string) error {
	return s.retryPut(ctx, f.Size, func(ctx context.Context) error { return s.downloadOnce(ctx, f, p) })
}

func (s *Shipper) downloadOnce(ctx context.Context, f File, p string) error {
	tmp, err := os.CreateTemp(s.opts.CacheDir, tmpDownloadPrefix+f.SHA256[:16]+"-")
	if err != nil {
		return errLocal{fmt.Errorf("ship: download object %s: %w", ObjectName(f.SHA256), err)}
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	size, sum, err := s.copyObject(ctx, ObjectName(f.SHA256), tmp)
	err = errors.Join(err, tmp.Chmod(privatefs.FileMode), tmp.Close())
	if err == nil {
		err = s.checkContent(ObjectName(f.SHA256), f, size, sum)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	return err
}

// copyObject streams object into w and returns its size and SHA-256.
func (s *Shipper) copyObject(ctx context.Context, object string, w io.Writer) (int64, string, error) {
	res, err := s.get(ctx, object)
	if err != nil {
		return 0, "", err
	}
	defer res.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), res)
	if err != nil {
		return n, "", s.readError(object, err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// checkContent compares what was read of object with f.
func (s *Shipper) checkContent(object string, f File, size int64, sum string) error {
	if sum != f.SHA256 || size != f.Size {
		return errLocal{fmt.Errorf("%w: object %s in bucket %s holds %d bytes hashing to %s, want %d bytes hashing to %s (file %s); restore from another checkpoint, or on a worker that has the file call Forget(sha256) and upload it again",
			ErrDamaged, object, s.bucket, size, sum, f.Size, f.SHA256, f.Path)}
	}
	return nil
}
