package ship

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/privatefs"
)

// ObjectPrefix starts the name of every file object: sst/<sha256>, for
// table files as well as the MANIFEST, OPTIONS, WAL and marker files of a
// Pebble checkpoint (design §5.0), so that equal bytes are stored once.
const ObjectPrefix = "sst/"

// ObjectName returns the object of the file whose content hashes to sha256.
func ObjectName(sha256 string) string { return ObjectPrefix + sha256 }

// DefaultBatchBytes is how much a restore writes into the live DB per
// batch: large enough to amortize a commit, small enough not to hold a
// memtable's worth of memory twice.
const DefaultBatchBytes = 4 << 20

// Options configure a Shipper.
type Options struct {
	// IndexDir holds the local index of objects this worker uploaded or
	// found in the bucket (one empty file per SHA-256). It saves a GetInfo
	// per unchanged file on every checkpoint. "" means no index: every file
	// is looked up in the bucket. One bucket per IndexDir.
	IndexDir string
	// CacheDir holds downloaded objects by SHA-256 and the temporary
	// checkpoint directories of restores (hard links to the cache). It
	// must be on the filesystem of its temporary directories and belong to
	// one Shipper: New removes leftovers of a crashed restore from it.
	// Required by Restore.
	CacheDir string
	// BatchBytes is the size of the batches a restore commits. Default
	// DefaultBatchBytes.
	BatchBytes int
	// PutTimeout bounds one attempt to store an object, plus a second per
	// MiB of it (putDeadline). Default DefaultPutTimeout.
	PutTimeout time.Duration
}

// DefaultPutTimeout bounds one attempt to store an object: above a
// JetStream leader election (4–10 s), after which the acks of the chunks
// sent to the old leader never come.
const DefaultPutTimeout = 15 * time.Second

// Shipper ships task checkpoints of a worker's Pebble DB to one Object
// Store bucket and restores key-group ranges from it. Its methods are safe
// for concurrent use.
type Shipper struct {
	obs    jetstream.ObjectStore
	bucket string
	opts   Options
	memo   hashMemo
	// flushedAt is, per DB, its WAL's logical bytes at the last flush and
	// the last checkpoint.
	flushMu   sync.Mutex
	flushedAt map[*pebble.DB]walMark
}

// New returns a Shipper on obs. It reads the bucket's name (for messages)
// and creates the directories of o.
func New(ctx context.Context, obs jetstream.ObjectStore, o Options) (*Shipper, error) {
	if o.BatchBytes == 0 {
		o.BatchBytes = DefaultBatchBytes
	}
	if o.PutTimeout == 0 {
		o.PutTimeout = DefaultPutTimeout
	}
	if o.BatchBytes < 0 {
		return nil, fmt.Errorf("%w: BatchBytes %d is negative; 0 means the default", ErrInvalid, o.BatchBytes)
	}
	st, err := obs.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: status of the object store: %w", ErrObjectStore, err)
	}
	s := &Shipper{obs: obs, bucket: st.Bucket(), opts: o, memo: hashMemo{files: map[string]memoEntry{}}}
	for _, dir := range []string{o.IndexDir, o.CacheDir} {
		if dir != "" {
			if err := os.MkdirAll(dir, privatefs.DirMode); err != nil {
				return nil, fmt.Errorf("%w: create %s: %w", ErrInvalid, dir, err)
			}
		}
	}
	return s, s.removeLeftovers()
}

// Bucket returns the bucket's name.
func (s *Shipper) Bucket() string { return s.bucket }

// Temporary names in CacheDir: a download being verified, a restore's
// checkpoint directory. Neither is ever a SHA-256.
const (
	tmpDownloadPrefix = ".tmp-"
	tmpRestorePrefix  = ".restore-"
)

// removeLeftovers deletes what a crash left in CacheDir.
func (s *Shipper) removeLeftovers() error {
	if s.opts.CacheDir == "" {
		return nil
	}
	names, err := os.ReadDir(s.opts.CacheDir)
	if err != nil {
		return fmt.Errorf("%w: read cache %s: %w", ErrInvalid, s.opts.CacheDir, err)
	}
	for _, e := range names {
		if strings.HasPrefix(e.Name(), tmpDownloadPrefix) || strings.HasPrefix(e.Name(), tmpRestorePrefix) {
			if err := os.RemoveAll(filepath.Join(s.opts.CacheDir, e.Name())); err != nil {
				return fmt.Errorf("ship: remove leftover %s: %w", e.Name(), err)
			}
		}
	}
	return nil
}
