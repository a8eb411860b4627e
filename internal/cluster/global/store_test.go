package global_test

import (
	"reflect"
	"testing"

	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

func TestPutReadManifest(t *testing.T) {
	obs := objectStore(t)
	m := assemble(t, ack("a", 100, 0, 1), ack("b", 90, 2, 3))
	object, sum, err := global.PutManifest(testCtx(t), obs, m)
	if err != nil {
		t.Fatal(err)
	}
	if object != "ckpt/1-g1/MANIFEST.json" {
		t.Fatalf("object %s", object)
	}
	got, err := global.ReadManifest(testCtx(t), obs, object, sum)
	if err != nil {
		t.Fatal(err)
	}
	m.Checksum = got.Checksum
	if !reflect.DeepEqual(got, m) {
		t.Fatal("the manifest read differs from the one put")
	}
	// A damaged object is refused naming it: by its reference's hash, and
	// without one by the manifest's own checksum.
	flip(t, obs, object)
	_, err = global.ReadManifest(testCtx(t), obs, object, sum)
	testutil.WantErr(t, err, ship.ErrDamaged, object)
	_, err = global.ReadManifest(testCtx(t), obs, object, "")
	testutil.WantErr(t, err, global.ErrCorrupt, object)
	_, err = global.ReadManifest(testCtx(t), obs, "ckpt/2-g1/MANIFEST.json", "")
	testutil.WantErr(t, err, ship.ErrMissingObject, "ckpt/2-g1/MANIFEST.json")
}

func TestPutReadAck(t *testing.T) {
	obs := objectStore(t)
	a := ack("w1", 100, 0, 1)
	object, sum, err := global.PutAck(testCtx(t), obs, a)
	if err != nil {
		t.Fatal(err)
	}
	if object != "ckpt/1-g1/w-w1-a1.json" {
		t.Fatalf("object %s", object)
	}
	got, err := global.ReadAck(testCtx(t), obs, object, sum)
	if err != nil {
		t.Fatal(err)
	}
	if got.Worker != "w1" || len(got.Tasks) != 2 {
		t.Fatalf("read %+v", got)
	}
	flip(t, obs, object)
	_, err = global.ReadAck(testCtx(t), obs, object, "")
	testutil.WantErr(t, err, global.ErrCorrupt, object)
}
