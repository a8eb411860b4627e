package ship_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/state"
)

// flipObject replaces object with its bytes with one bit flipped (a put
// under the same name, so the Object Store's own digest matches the
// damaged bytes: only the content address can tell) and returns a func
// that puts the original back.
func flipObject(t *testing.T, obs jetstream.ObjectStore, object string) (restore func()) {
	t.Helper()
	orig, err := obs.GetBytes(testCtx(t), object)
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), orig...)
	bad[len(bad)/2] ^= 0x10
	if _, err := obs.PutBytes(testCtx(t), object, bad); err != nil {
		t.Fatal(err)
	}
	return func() {
		if _, err := obs.PutBytes(testCtx(t), object, orig); err != nil {
			t.Fatal(err)
		}
	}
}

// One flipped byte in an uploaded object fails the restore with an error
// naming the object. Every object is checked before the target is
// touched, so nothing is imported, also from the intact task checkpoint of
// a merge.
func TestRestoreRefusesDamagedObject(t *testing.T) {
	_, obs := objectStore(t)
	src := openStore(t)
	fill(t, src, 2000, 512, 5)
	settle(t, src.DB())
	up := shipper(t, obs)
	_, one := snapshotUpload(t, up, src, 1, "ckpt/1/risk-32.json")
	_, two := snapshotUpload(t, up, src, 2, "ckpt/1/risk-64.json")
	object := ship.ObjectName(largestOwn(two.Manifest, one.Manifest).SHA256)
	flipObject(t, obs, object)

	merged := state.KeyGroupRange{Start: 32, End: 96}
	dst, _, err := restoreInto(t, shipper(t, obs), []ship.TaskManifest{one.Manifest, two.Manifest}, merged)
	if !errors.Is(err, ship.ErrDamaged) || !strings.Contains(err.Error(), object) {
		t.Fatalf("got %v, want ErrDamaged naming %s", err, object)
	}
	if n := len(dump(t, dst.DB(), nil, nil)); n != 1 {
		t.Fatalf("%d keys imported by a restore that met a damaged object", n-1)
	}
	t.Logf("error: %v", err)
}

// Verify finds one flipped byte in any object of a task checkpoint and
// names it (design §7 phase 1, acceptance 5). Empty objects have no byte
// to flip.
func TestVerifyFindsAFlippedByteInEveryObject(t *testing.T) {
	_, obs := objectStore(t)
	src := openStore(t)
	fill(t, src, 400, 64, 6)
	settle(t, src.DB())
	_, up := snapshotUpload(t, shipper(t, obs), src, 1, "ckpt/1/risk-32.json")
	s := shipper(t, obs)
	if err := s.Verify(testCtx(t), up.Manifest); err != nil {
		t.Fatalf("intact checkpoint: %v", err)
	}
	for _, f := range up.Manifest.Files {
		if f.Size == 0 {
			continue
		}
		object := ship.ObjectName(f.SHA256)
		putBack := flipObject(t, obs, object)
		err := s.Verify(testCtx(t), up.Manifest)
		if !errors.Is(err, ship.ErrDamaged) || !strings.Contains(err.Error(), object) {
			t.Fatalf("%s (%s): got %v, want ErrDamaged naming it", f.Path, object, err)
		}
		putBack()
	}
	if err := obs.Delete(testCtx(t), ship.ObjectName(largest(up.Manifest).SHA256)); err != nil {
		t.Fatal(err)
	}
	if err := s.Verify(testCtx(t), up.Manifest); !errors.Is(err, ship.ErrMissingObject) {
		t.Fatalf("deleted object: got %v, want ErrMissingObject", err)
	}
}

// A damaged task manifest is refused by its own checksum and by the
// SHA-256 its reference gives.
func TestFetchManifestRefusesDamage(t *testing.T) {
	_, obs := objectStore(t)
	src := openStore(t)
	fill(t, src, 40, 16, 7)
	_, up := snapshotUpload(t, shipper(t, obs), src, 1, "ckpt/1/risk-32.json")
	flipObject(t, obs, up.ManifestObject)
	s := shipper(t, obs)
	if _, err := s.FetchManifest(testCtx(t), up.ManifestObject, up.ManifestSHA256); !errors.Is(err, ship.ErrDamaged) {
		t.Fatalf("with its SHA-256: got %v, want ErrDamaged", err)
	}
	_, err := s.FetchManifest(testCtx(t), up.ManifestObject, "")
	if !errors.Is(err, ship.ErrCorruptManifest) || !strings.Contains(err.Error(), up.ManifestObject) {
		t.Fatalf("without: got %v, want ErrCorruptManifest naming the object", err)
	}
}

// A damaged file in the local cache is not used: the restore downloads
// the object again.
func TestRestoreRedownloadsADamagedCacheFile(t *testing.T) {
	_, obs := objectStore(t)
	src := openStore(t)
	fill(t, src, 400, 64, 8)
	settle(t, src.DB())
	_, up := snapshotUpload(t, shipper(t, obs), src, 1, "ckpt/1/risk-32.json")
	cache := t.TempDir()
	s, err := ship.New(testCtx(t), obs, ship.Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := restoreInto(t, s, []ship.TaskManifest{up.Manifest}, task(1).Range); err != nil {
		t.Fatal(err)
	}
	f := largest(up.Manifest)
	if err := os.WriteFile(filepath.Join(cache, f.SHA256), []byte("damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	dst, res, err := restoreInto(t, s, []ship.TaskManifest{up.Manifest}, task(1).Range)
	if err != nil || res.Downloaded != f.Size {
		t.Fatalf("restore over a damaged cache: %v, downloaded %d bytes (want %d)", err, res.Downloaded, f.Size)
	}
	if err := equalMaps(stateOf(t, dst.DB(), testOp, task(1).Range), stateOf(t, src.DB(), testOp, task(1).Range)); err != nil {
		t.Fatal(err)
	}
}

// largestOwn is the largest file of m that other does not share.
func largestOwn(m, other ship.TaskManifest) ship.File {
	shared := map[string]bool{}
	for _, f := range other.Files {
		shared[f.SHA256] = true
	}
	var big ship.File
	for _, f := range m.Files {
		if !shared[f.SHA256] && f.Size > big.Size {
			big = f
		}
	}
	return big
}

func largest(m ship.TaskManifest) ship.File {
	var big ship.File
	for _, f := range m.Files {
		if f.Size > big.Size {
			big = f
		}
	}
	return big
}
