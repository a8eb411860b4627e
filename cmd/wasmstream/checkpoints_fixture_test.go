package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine"
)

// fixtureEpoch is when the fixture's first checkpoint was triggered; fixed,
// so the docs can show output that the tests produce.
var fixtureEpoch = time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)

// riskModuleSHA256 and limitsModuleSHA256 stand for two operator modules.
var (
	riskModuleSHA256   = sha256Hex("risk.wasm v1")
	limitsModuleSHA256 = sha256Hex("limits.wasm v1")
)

// fixtureConfig is the configuration text stored in the fixture's manifests.
const fixtureConfig = `name     = "payment-risk"
data_dir = "./data"

stream "PAYMENTS" {
  subjects = ["payments.>"]
}

stream "LIMITS" {
  subjects = ["limits.>"]
}

stream "RISK" {
  subjects = ["risk.>"]
}

source "payments" {
  stream = "PAYMENTS"
}

source "limits" {
  stream = "LIMITS"
}

operator "limits" {
  module = "operator/limits.wasm"
  inputs = ["limits"]
  key {
    json_field = "account"
  }
  max_parallelism = 16
  outputs         = { out = "risk-totals" }
}

operator "risk" {
  module = "operator/risk.wasm"
  inputs = ["payments", "limits"]
  key {
    json_field = "account"
  }
  max_parallelism = 128
  parallelism     = 2
  state_version   = "v2"
  outputs         = { out = "risk-totals" }
}

sink "risk-totals" {
  subject = "risk.totals"
}
`

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// writeFixture creates three checkpoints of a real Pebble DB under
// dataDir/checkpoints, as a two-source, two-operator pipeline would: 1 from
// empty state, 2 aligned, 3 unaligned after a restore from 2. It returns the
// manifests as written, oldest first.
func writeFixture(t *testing.T, dataDir string) []checkpoint.Manifest {
	t.Helper()
	db, err := pebble.Open(filepath.Join(t.TempDir(), "state"), &pebble.Options{Logger: quietPebble{}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	root := engine.CheckpointRootIn(dataDir)
	var written []checkpoint.Manifest
	for i, pos := range []struct{ payments, limits uint64 }{{500, 12}, {1500, 40}, {2300, 41}} {
		putFixtureKeys(t, db, i*400, (i+1)*400)
		m, err := checkpoint.Write(root, db, fixtureManifest(uint64(i+1), pos.payments, pos.limits))
		if err != nil {
			t.Fatal(err)
		}
		written = append(written, m)
	}
	return written
}

// putFixtureKeys writes state keys [from, to) prefixed by a key group, the
// way the state store lays them out.
func putFixtureKeys(t *testing.T, db *pebble.DB, from, to int) {
	t.Helper()
	b := db.NewBatch()
	for i := from; i < to; i++ {
		key := fmt.Appendf(nil, "%04x/risk/acct-%05d", i%128, i)
		if err := b.Set(key, bytes.Repeat([]byte{byte(i)}, 64), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		t.Fatal(err)
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
}

// fixtureManifest is the caller's part of checkpoint id's manifest; id 3 is
// unaligned (task 1 of risk snapshotted before the limits barrier) and was
// written by a run restored from checkpoint 2.
func fixtureManifest(id, payments, limits uint64) checkpoint.Manifest {
	created := fixtureEpoch.Add(time.Duration(id-1) * 10 * time.Second)
	ms := time.Millisecond
	m := checkpoint.Manifest{
		ID:        id,
		Created:   created,
		Completed: created.Add(34*ms + time.Duration(id)*ms),
		Sources: []checkpoint.SourcePosition{
			{Name: "payments", Stream: "PAYMENTS", StreamCreated: fixtureEpoch.Add(-time.Hour), LastSequence: payments},
			{Name: "limits", Stream: "LIMITS", StreamCreated: fixtureEpoch.Add(-2 * time.Hour), LastSequence: limits},
		},
		Operators: []checkpoint.OperatorEntry{
			{Name: "risk", ModuleSHA256: riskModuleSHA256, ABIVersion: 1, StateFormatVersion: 1, StateVersion: "v2",
				MaxParallelism: 128, Tasks: []checkpoint.TaskEntry{
					{KeyGroupRange: checkpoint.KeyGroupRange{Start: 0, End: 64}, Inputs: map[string]uint64{"payments": payments, "limits": limits},
						PauseNanos: int64(1200 * time.Microsecond), AlignmentNanos: int64(2100 * time.Microsecond)},
					{KeyGroupRange: checkpoint.KeyGroupRange{Start: 64, End: 128}, Inputs: map[string]uint64{"payments": payments, "limits": limits},
						PauseNanos: int64(900 * time.Microsecond), AlignmentNanos: int64(1800 * time.Microsecond)},
				}},
			{Name: "limits", ModuleSHA256: limitsModuleSHA256, ABIVersion: 1, StateFormatVersion: 1,
				MaxParallelism: 16, Tasks: []checkpoint.TaskEntry{
					{KeyGroupRange: checkpoint.KeyGroupRange{Start: 0, End: 16}, Inputs: map[string]uint64{"limits": limits},
						PauseNanos: int64(300 * time.Microsecond)},
				}},
		},
		Config: fixtureConfig,
		Metrics: checkpoint.Metrics{
			DurationNanos: int64(34*ms + time.Duration(id)*ms), AlignmentNanos: int64(2100 * time.Microsecond),
			MaxPauseNanos: int64(1200 * time.Microsecond), Mode: "aligned",
		},
	}
	if id == 3 {
		task := &m.Operators[0].Tasks[1]
		task.Unaligned, task.Inputs["limits"] = true, limits-1
		m.Metrics.Mode = "unaligned"
		m.Metrics.Recovery = &checkpoint.RecoveryMetrics{FromCheckpoint: 2, DurationNanos: int64(850 * ms), RecordsReplayed: 120}
	}
	return m
}

// quietPebble keeps Pebble's informational lines out of test output.
type quietPebble struct{}

func (quietPebble) Infof(string, ...any)         {}
func (quietPebble) Errorf(f string, args ...any) { fmt.Printf(f+"\n", args...) }
func (quietPebble) Fatalf(f string, args ...any) { panic(fmt.Sprintf(f, args...)) }

// TestCheckpointsWriteDocsFixture writes the fixture to the data dir named
// by WASMSTREAM_CHECKPOINTS_FIXTURE, to regenerate the output shown in
// docs/checkpoints-cli.md; it is skipped otherwise.
func TestCheckpointsWriteDocsFixture(t *testing.T) {
	dir := os.Getenv("WASMSTREAM_CHECKPOINTS_FIXTURE")
	if dir == "" {
		t.Skip("set WASMSTREAM_CHECKPOINTS_FIXTURE=DIR to write the docs fixture")
	}
	writeFixture(t, dir)
}
