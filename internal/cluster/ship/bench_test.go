package ship_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/natsio"
)

// benchTask is one task owning every key group: its checkpoint is all the
// benchmark's state.
var benchTask = ship.Task{Operator: testOp, MaxParallelism: testMaxPar, Range: state.KeyGroupRange{Start: 0, End: testMaxPar}}

// benchSnapshot writes about 50 MB of state (48k keys, 1 KiB random values,
// so Snappy cannot shrink them) and snapshots it.
func benchSnapshot(b *testing.B, s *ship.Shipper) ship.Snapshot {
	b.Helper()
	src := openStore(b)
	rng := rand.New(rand.NewPCG(9, 9))
	for i := range testTasks {
		writeTask(b, src, testOp, i, 12000, 1024, rng)
	}
	settle(b, src.DB())
	snap, err := s.Snapshot(src.DB(), filepath.Join(b.TempDir(), "ckpt"), benchTask)
	if err != nil {
		b.Fatal(err)
	}
	return snap
}

// BenchmarkUpload uploads a 50 MB task checkpoint into an empty bucket:
// every byte is new (the first checkpoint of a worker).
//
//	go test ./internal/cluster/ship -run XXX -bench Upload -benchtime 3x
func BenchmarkUpload(b *testing.B) {
	c, obs := objectStore(b)
	snap := benchSnapshot(b, shipper(b, obs))
	b.SetBytes(snap.Manifest.Bytes())
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		bucketName := fmt.Sprint("up", i)
		s := shipper(b, bucket(b, c, bucketName))
		b.StartTimer()
		if _, err := s.Upload(testCtx(b), snap, "ckpt/1/all.json"); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		dropBucket(b, c, bucketName)
		b.StartTimer()
	}
}

// BenchmarkRestore restores the 50 MB task checkpoint into an empty store:
// cold downloads every object, warm finds them in the cache (and hashes
// them again); both import every key.
//
//	go test ./internal/cluster/ship -run XXX -bench Restore -benchtime 3x
func BenchmarkRestore(b *testing.B) {
	_, obs := objectStore(b)
	up := shipper(b, obs)
	snap := benchSnapshot(b, up)
	res, err := up.Upload(testCtx(b), snap, "ckpt/1/all.json")
	if err != nil {
		b.Fatal(err)
	}
	warm := shipper(b, obs)
	restoreBench(b, warm, res.Manifest) // fills warm's cache
	b.Run("cold", func(b *testing.B) {
		b.SetBytes(res.Manifest.Bytes())
		for b.Loop() {
			b.StopTimer()
			s := shipper(b, obs)
			b.StartTimer()
			restoreBench(b, s, res.Manifest)
		}
	})
	b.Run("warm", func(b *testing.B) {
		b.SetBytes(res.Manifest.Bytes())
		for b.Loop() {
			restoreBench(b, warm, res.Manifest)
		}
	})
}

// restoreBench restores m into a fresh store, untimed apart from Restore.
func restoreBench(b *testing.B, s *ship.Shipper, m ship.TaskManifest) {
	b.Helper()
	b.StopTimer()
	dir := b.TempDir()
	dst, err := state.Open(dir, state.Options{CacheSizeBytes: 16 << 20})
	if err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	res, err := s.Restore(testCtx(b), []ship.TaskManifest{m},
		ship.Target{DB: dst.DB(), Operator: testOp, MaxParallelism: testMaxPar, Range: benchTask.Range})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(res.Keys), "keys/op")
	if err := dst.Close(); err != nil {
		b.Fatal(err)
	}
	os.RemoveAll(dir)
	b.StartTimer()
}

func dropBucket(b *testing.B, c *natsio.Conn, name string) {
	b.Helper()
	if err := c.JS.DeleteObjectStore(testCtx(b), name); err != nil {
		b.Fatal(err)
	}
}
