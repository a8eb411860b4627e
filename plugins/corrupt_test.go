package plugins

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// storeObject writes an object under the registry's bucket directly, as
// another tool could.
func storeObject(t *testing.T, r *Registry, meta jetstream.ObjectMeta, data []byte) jetstream.ObjectStore {
	t.Helper()
	obs, err := r.conn.JS.CreateOrUpdateObjectStore(testCtx(t), jetstream.ObjectStoreConfig{Bucket: r.Bucket()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := obs.Put(testCtx(t), meta, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	return obs
}

// Foreign objects and objects whose bytes are not their name's version are
// never listed, resolved or returned.
func TestForeignAndMismatchedObjects(t *testing.T) {
	r := newTestRegistry(t)
	ctx := testCtx(t)
	good := fixture(t, "good.wasm")
	e := mustPush(t, r, "risk", good)
	storeObject(t, r, jetstream.ObjectMeta{Name: "README"}, []byte("notes"))
	// Other bytes stored under a version's name.
	fake := objectMeta(Entry{Name: "fake", Info: Info{Hash: HashBytes(good), ABIVersion: 1}})
	storeObject(t, r, fake, []byte("not the module"))

	list, err := r.List(ctx)
	if err != nil || len(list) != 1 || list[0].Hash != e.Hash {
		t.Fatalf("list %v, %v; want only %s", list, err, e)
	}
	ref := Ref{Name: "fake", Hash: HashBytes(good)}
	if _, err := r.Resolve(ctx, ref); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("resolve %s: %v, want ErrCorrupt", ref, err)
	}
	if b, _, err := r.Get(ctx, ref); !errors.Is(err, ErrCorrupt) || b != nil {
		t.Fatalf("get %s: %d bytes, %v; want ErrCorrupt and no bytes", ref, len(b), err)
	}
	// Pushing the real module under that name repairs the version.
	if e := mustPush(t, r, "fake", good); e.AlreadyStored {
		t.Fatal("the damaged object counted as already stored")
	}
	if b, _, err := r.Get(ctx, ref); err != nil || !bytes.Equal(b, good) {
		t.Fatalf("get after repair: %d bytes, %v", len(b), err)
	}
}

// A version whose chunks do not match its recorded digest (damage in the
// stream) is refused by Get and Fetch instead of returned.
func TestGetRefusesDamagedChunks(t *testing.T) {
	r := newTestRegistry(t)
	ctx := testCtx(t)
	good := fixture(t, "good.wasm")
	e := mustPush(t, r, "risk", good)
	// Point the version's metadata at another object's chunks: the digest
	// (and the name) still say good.wasm.
	other := storeObject(t, r, jetstream.ObjectMeta{Name: "other"}, variant(t, 9))
	oi, err := other.GetInfo(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	vi, err := other.GetInfo(ctx, objectName(e.Name, e.Hash))
	if err != nil {
		t.Fatal(err)
	}
	vi.NUID, vi.Size, vi.Chunks = oi.NUID, oi.Size, oi.Chunks
	rewriteMeta(t, r, vi)

	if _, _, err := r.Get(ctx, e.Ref()); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("get: %v, want ErrCorrupt", err)
	}
	if _, _, err := r.Fetch(ctx, e.Ref(), t.TempDir()); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("fetch: %v, want ErrCorrupt", err)
	}
}

// rewriteMeta replaces an object's metadata message, as the object store
// itself would on an update, bypassing its checks.
func rewriteMeta(t *testing.T, r *Registry, info *jetstream.ObjectInfo) {
	t.Helper()
	data, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	msg := nats.NewMsg("$O." + r.Bucket() + ".M." + base64.URLEncoding.EncodeToString([]byte(info.Name)))
	msg.Header.Set(jetstream.MsgRollup, jetstream.MsgRollupSubject)
	msg.Data = data
	if _, err := r.conn.JS.PublishMsg(testCtx(t), msg); err != nil {
		t.Fatal(err)
	}
}
