package savepointstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/natsio"
)

// SavepointBucket is the Object Store bucket of savepoints. Each savepoint
// is one object, <pipeline>/<name>.tar, holding its archive (checkpoint/FORMAT.md §6).
const SavepointBucket = "wasmstream-savepoints"

// Object metadata keys: what list shows without downloading the archive.
const (
	metaSavepointCheckpoint = "wasmstream-savepoint-checkpoint"
	metaSavepointCreated    = "wasmstream-savepoint-created"
	metaSavepointChecksum   = "wasmstream-savepoint-checksum"
)

// SavepointStore keeps savepoint archives in a JetStream Object Store
// bucket, so that another machine on the same NATS can restore them.
type SavepointStore struct {
	conn   *natsio.Conn
	bucket string
}

// NewSavepointStore returns the store on conn; bucket "" means
// SavepointBucket. Nothing is created until the first Put.
func NewSavepointStore(conn *natsio.Conn, bucket string) *SavepointStore {
	return &SavepointStore{conn: conn, bucket: cmp.Or(bucket, SavepointBucket)}
}

// StoredSavepoint is a savepoint object in the bucket.
type StoredSavepoint struct {
	Pipeline     string    `json:"pipeline"`
	Name         string    `json:"name"`
	Bucket       string    `json:"bucket"`
	Object       string    `json:"object"`
	Size         uint64    `json:"size"`
	Stored       time.Time `json:"stored"`
	CheckpointID uint64    `json:"checkpoint_id"`
	Created      time.Time `json:"created"`
	Description  string    `json:"description,omitempty"`
	// AlreadyStored: Put found these exact bytes' savepoint there already.
	AlreadyStored bool `json:"-"`
}

// SavepointObject is the object name of a pipeline's savepoint.
func SavepointObject(pipeline, name string) string { return pipeline + "/" + name + ".tar" }

// Put stores savepoint name of root as the archive object of its pipeline.
// The archive is streamed and verified on the way (checkpoint.WriteArchive); a failure
// leaves no new object. An object of that name holding the same savepoint
// is left as it is (AlreadyStored); one holding another savepoint is
// checkpoint.ErrSavepointExists.
func (s *SavepointStore) Put(ctx context.Context, root, name string) (StoredSavepoint, error) {
	sp, err := checkpoint.ReadSavepoint(root, name)
	if err != nil {
		return StoredSavepoint{}, err
	}
	obs, err := s.conn.EnsureObjectStore(ctx, natsio.ObjectStoreSpec{
		Bucket: s.bucket, Description: "wasmstream savepoints", Storage: natsio.StorageFile})
	if err != nil {
		return StoredSavepoint{}, err
	}
	object := SavepointObject(sp.Info.Pipeline, sp.Info.Name)
	switch old, err := s.info(ctx, obs, object); {
	case err == nil && old.Metadata[metaSavepointChecksum] == sp.Info.Checksum:
		st, err := storedFromObject(old)
		st.AlreadyStored = true
		return st, err
	case err == nil:
		return StoredSavepoint{}, fmt.Errorf("%w: object %s in bucket %s on %s holds another savepoint %q; remove it first or use another name",
			checkpoint.ErrSavepointExists, object, s.bucket, s.conn.ClientURL(), name)
	case !errors.Is(err, checkpoint.ErrSavepointNotFound):
		return StoredSavepoint{}, err
	}
	oi, err := s.put(ctx, obs, sp, object)
	if err != nil {
		return StoredSavepoint{}, s.storeError(fmt.Errorf("put savepoint %q: %w", name, err))
	}
	return storedFromObject(oi)
}

// put streams the archive into the object.
func (s *SavepointStore) put(ctx context.Context, obs jetstream.ObjectStore, sp checkpoint.Savepoint, object string) (*jetstream.ObjectInfo, error) {
	meta := jetstream.ObjectMeta{Name: object, Description: sp.Info.Description, Metadata: map[string]string{
		metaSavepointCheckpoint: strconv.FormatUint(sp.Info.CheckpointID, 10),
		metaSavepointCreated:    sp.Info.Created.UTC().Format(time.RFC3339Nano),
		metaSavepointChecksum:   sp.Info.Checksum,
	}}
	pr, pw := io.Pipe()
	written := make(chan error, 1)
	go func() {
		err := checkpoint.WriteSavepointArchive(pw, sp)
		pw.CloseWithError(err)
		written <- err
	}()
	oi, err := obs.Put(ctx, meta, pr)
	pr.CloseWithError(errUploadStopped) // unblocks the writer when Put gave up early
	werr := <-written
	switch {
	case werr != nil && !errors.Is(werr, errUploadStopped):
		return nil, werr // Put failed on it too and purged the partial object
	case err != nil:
		return nil, err
	}
	return oi, nil
}

// errUploadStopped ends the archive writer when the upload ended first.
var errUploadStopped = errors.New("upload stopped")

// Get opens the archive of a pipeline's savepoint. The caller closes it.
func (s *SavepointStore) Get(ctx context.Context, pipeline, name string) (io.ReadCloser, StoredSavepoint, error) {
	obs, err := s.open(ctx, pipeline, name)
	if err != nil {
		return nil, StoredSavepoint{}, err
	}
	object := SavepointObject(pipeline, name)
	res, err := obs.Get(ctx, object)
	switch {
	case errors.Is(err, jetstream.ErrObjectNotFound):
		return nil, StoredSavepoint{}, s.notFound(ctx, obs, pipeline, name)
	case err != nil:
		return nil, StoredSavepoint{}, s.storeError(fmt.Errorf("get %s: %w", object, err))
	}
	oi, err := res.Info()
	if err != nil {
		res.Close()
		return nil, StoredSavepoint{}, s.storeError(err)
	}
	st, err := storedFromObject(oi)
	if err != nil {
		res.Close()
		return nil, StoredSavepoint{}, err
	}
	return res, st, nil
}

// List returns the savepoints of pipeline (all pipelines when ""), by
// pipeline then newest first. A bucket nobody stored to yet is empty.
func (s *SavepointStore) List(ctx context.Context, pipeline string) ([]StoredSavepoint, error) {
	obs, err := s.conn.OpenObjectStore(ctx, s.bucket)
	if errors.Is(err, natsio.ErrObjectStoreNotFound) {
		return []StoredSavepoint{}, nil
	}
	if err != nil {
		return nil, err
	}
	return s.list(ctx, obs, pipeline)
}

func (s *SavepointStore) list(ctx context.Context, obs jetstream.ObjectStore, pipeline string) ([]StoredSavepoint, error) {
	objects, err := obs.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return []StoredSavepoint{}, nil
	}
	if err != nil {
		return nil, s.storeError(err)
	}
	out := []StoredSavepoint{}
	for _, o := range objects {
		st, err := storedFromObject(o)
		if err != nil || (pipeline != "" && st.Pipeline != pipeline) {
			continue // another tool's object in a shared bucket
		}
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b StoredSavepoint) int {
		return cmp.Or(cmp.Compare(a.Pipeline, b.Pipeline), b.Created.Compare(a.Created), cmp.Compare(a.Name, b.Name))
	})
	return out, nil
}

// Remove deletes a pipeline's savepoint object.
func (s *SavepointStore) Remove(ctx context.Context, pipeline, name string) error {
	obs, err := s.open(ctx, pipeline, name)
	if err != nil {
		return err
	}
	// Delete of a deleted object succeeds; the user must hear it was not there.
	if _, err := s.info(ctx, obs, SavepointObject(pipeline, name)); errors.Is(err, checkpoint.ErrSavepointNotFound) {
		return s.notFound(ctx, obs, pipeline, name)
	}
	err = obs.Delete(ctx, SavepointObject(pipeline, name))
	switch {
	case errors.Is(err, jetstream.ErrObjectNotFound):
		return s.notFound(ctx, obs, pipeline, name)
	case err != nil:
		return s.storeError(fmt.Errorf("remove %s: %w", SavepointObject(pipeline, name), err))
	}
	return nil
}

// open checks the names and opens the bucket; a missing bucket means the
// savepoint is not there.
func (s *SavepointStore) open(ctx context.Context, pipeline, name string) (jetstream.ObjectStore, error) {
	if err := checkpoint.ValidateSavepointName(name); err != nil {
		return nil, err
	}
	if !checkpoint.ValidPipelineName(pipeline) {
		return nil, fmt.Errorf("%w: pipeline %q is not a pipeline name", checkpoint.ErrSavepointName, pipeline)
	}
	obs, err := s.conn.OpenObjectStore(ctx, s.bucket)
	if errors.Is(err, natsio.ErrObjectStoreNotFound) {
		return nil, fmt.Errorf("%w: %s: nothing was stored yet (bucket %s does not exist on %s)",
			checkpoint.ErrSavepointNotFound, SavepointObject(pipeline, name), s.bucket, s.conn.ClientURL())
	}
	return obs, err
}

// info returns an object's info, or checkpoint.ErrSavepointNotFound.
func (s *SavepointStore) info(ctx context.Context, obs jetstream.ObjectStore, object string) (*jetstream.ObjectInfo, error) {
	oi, err := obs.GetInfo(ctx, object)
	switch {
	case errors.Is(err, jetstream.ErrObjectNotFound):
		return nil, fmt.Errorf("%w: %s", checkpoint.ErrSavepointNotFound, object)
	case err != nil:
		return nil, s.storeError(err)
	}
	return oi, nil
}

// notFound names what the bucket does hold for the pipeline.
func (s *SavepointStore) notFound(ctx context.Context, obs jetstream.ObjectStore, pipeline, name string) error {
	err := fmt.Errorf("%w: %s is not in bucket %s on %s", checkpoint.ErrSavepointNotFound, SavepointObject(pipeline, name), s.bucket, s.conn.ClientURL())
	all, lerr := s.list(ctx, obs, pipeline)
	if lerr != nil || len(all) == 0 {
		return fmt.Errorf("%w; pipeline %s has no savepoints there", err, pipeline)
	}
	names := make([]string, len(all))
	for i, st := range all {
		names[i] = st.Name
	}
	return fmt.Errorf("%w; pipeline %s has: %s", err, pipeline, strings.Join(names, ", "))
}

func (s *SavepointStore) storeError(err error) error {
	return fmt.Errorf("savepoint store (bucket %s on %s): %w", s.bucket, s.conn.ClientURL(), err)
}

// storedFromObject reads a savepoint object's name and metadata; another
// tool's object is an error.
func storedFromObject(o *jetstream.ObjectInfo) (StoredSavepoint, error) {
	pipeline, file, ok := strings.Cut(o.Name, "/")
	name, isTar := strings.CutSuffix(file, ".tar")
	if !ok || !isTar || !checkpoint.ValidPipelineName(pipeline) || checkpoint.ValidateSavepointName(name) != nil {
		return StoredSavepoint{}, fmt.Errorf("object %q is not a savepoint (PIPELINE/NAME.tar)", o.Name)
	}
	st := StoredSavepoint{Pipeline: pipeline, Name: name, Bucket: o.Bucket, Object: o.Name, Size: o.Size,
		Stored: o.ModTime.UTC(), Description: o.Description}
	st.CheckpointID, _ = strconv.ParseUint(o.Metadata[metaSavepointCheckpoint], 10, 64)
	st.Created, _ = time.Parse(time.RFC3339Nano, o.Metadata[metaSavepointCreated])
	return st, nil
}
