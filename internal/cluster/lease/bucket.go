package lease

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// MarkerTTL is how long the bucket keeps the marker a key's expiry leaves.
// Watchers learn of an expiry from it; a minute covers a watcher that was
// reconnecting through an election.
const MarkerTTL = time.Minute

// Bucket is the control KV bucket that holds leases and the records
// fenced by them.
type Bucket struct {
	js   jetstream.JetStream
	kv   jetstream.KeyValue
	name string
}

// EnsureBucket creates the bucket name with replicas copies, History 1 and
// MarkerTTL, or opens it when it already exists with those settings.
// Create it at deploy or first start: creating an R3 asset right after a
// node died timed out (design §4).
func EnsureBucket(ctx context.Context, js jetstream.JetStream, name string, replicas int) (*Bucket, error) {
	if replicas < 1 || replicas > 5 {
		return nil, fmt.Errorf("%w: bucket %s: %d replicas; JetStream allows 1 to 5 (3 for a cluster)", ErrInvalid, name, replicas)
	}
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: name, History: 1, Replicas: replicas,
		LimitMarkerTTL: MarkerTTL, Storage: jetstream.FileStorage})
	if errors.Is(err, jetstream.ErrBucketExists) {
		kv, err = openExisting(ctx, js, name, replicas)
	}
	if err != nil {
		return nil, fmt.Errorf("lease bucket %s: %w", name, err)
	}
	return &Bucket{js: js, kv: kv, name: name}, nil
}

// openExisting opens a bucket that was created with other settings, and
// accepts it only when leases work on it.
func openExisting(ctx context.Context, js jetstream.JetStream, name string, replicas int) (jetstream.KeyValue, error) {
	kv, err := js.KeyValue(ctx, name)
	if err != nil {
		return nil, err
	}
	st, err := kv.Status(ctx)
	if err != nil {
		return nil, err
	}
	if err := checkStatus(st, replicas); err != nil {
		return nil, fmt.Errorf("%w: %w; delete the bucket (nats kv del %s) or use another name", ErrBucketConfig, err, name)
	}
	return kv, nil
}

func checkStatus(st jetstream.KeyValueStatus, replicas int) error {
	switch {
	case st.History() != 1:
		return fmt.Errorf("history %d, want 1 (with more, an expired lease brings its previous revision back)", st.History())
	case st.LimitMarkerTTL() <= 0:
		return errors.New("no limit marker TTL (per-key TTLs need one)")
	}
	if kvs, ok := st.(*jetstream.KeyValueBucketStatus); ok && kvs.StreamInfo().Config.Replicas != replicas {
		return fmt.Errorf("%d replicas, want %d", kvs.StreamInfo().Config.Replicas, replicas)
	}
	return nil
}

// Name is the bucket's name.
func (b *Bucket) Name() string { return b.name }

// Stream is the JetStream stream behind the bucket.
func (b *Bucket) Stream() string { return "KV_" + b.name }

// Subject is the stream subject of key.
func (b *Bucket) Subject(key string) string { return "$KV." + b.name + "." + key }

// KV is the bucket as a nats.go KeyValue, for watches. Read coordination
// records with Bucket.Get, not KeyValue.Get (a Direct Get, which can be
// stale).
func (b *Bucket) KV() jetstream.KeyValue { return b.kv }

// Get reads key's last message through the stream leader (LeaderGet).
// A deleted or expired key is ErrNotFound.
func (b *Bucket) Get(ctx context.Context, key string) (*jetstream.RawStreamMsg, error) {
	m, err := LeaderGet(ctx, b.js, b.Stream(), b.Subject(key))
	if err == nil && isDeleted(m) {
		return nil, fmt.Errorf("%w: key %s of bucket %s is deleted or expired (revision %d)", ErrNotFound, key, b.name, m.Sequence)
	}
	return m, err
}

// isDeleted reports a KV delete or purge marker, or the marker a TTL or
// limit expiry leaves (nats-server sdm.go: Nats-Marker-Reason).
func isDeleted(m *jetstream.RawStreamMsg) bool {
	return m.Header.Get("KV-Operation") != "" || m.Header.Get(jetstream.MarkerReasonHeader) != ""
}

// OpenBucket opens an existing bucket for reading (a status command):
// ErrNotFound when it does not exist, nothing is created.
func OpenBucket(ctx context.Context, js jetstream.JetStream, name string) (*Bucket, error) {
	kv, err := js.KeyValue(ctx, name)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, fmt.Errorf("%w: bucket %s does not exist", ErrNotFound, name)
	}
	if err != nil {
		return nil, fmt.Errorf("lease bucket %s: %w", name, err)
	}
	return &Bucket{js: js, kv: kv, name: name}, nil
}
