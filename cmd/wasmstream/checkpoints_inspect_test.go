package main

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine"
)

func TestCheckpointsInspectText(t *testing.T) {
	dataDir, written := fixtureDataDir(t)
	m := written[2]
	out := mustRunCheckpoints(t, "inspect", "--data-dir", dataDir, "3")
	for _, want := range []string{
		"checkpoint 3\n", checkpoint.Dir(engine.CheckpointRootIn(dataDir), 3),
		"2025-03-14T09:27:13.000Z", "2025-03-14T09:27:13.037Z", "37ms", "2.1ms (longest of any task)",
		"1.2ms (longest of any task)", "unaligned",
		"restored from checkpoint 2 in 850ms, 120 record(s) replayed",
		humanBytes(m.Metrics.BytesTotal) + " total, " + humanBytes(m.Metrics.BytesNew) + " new",
		"--files lists them", "--config prints it",
		`operator "risk"`, riskModuleSHA256, `operator "limits"`, limitsModuleSHA256, "v2", "128 key groups", "16 key groups",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect lacks %q:\n%s", want, out)
		}
	}
	rows := [][]string{
		{"payments", "PAYMENTS", "2025-03-14T08:26:53.000Z", "2300", "2301"},
		{"limits", "LIMITS", "2025-03-14T07:26:53.000Z", "41", "42"},
		{"0", "[0,", "64)", "limits=41", "payments=2300", "1.2ms", "2.1ms", "no"},
		{"1", "[64,", "128)", "limits=40", "payments=2300", "900µs", "1.8ms", "yes"},
		{"0", "[0,", "16)", "limits=41", "300µs", "0s", "no"},
		{"files", uintString(uint64(len(m.Files))) + ","},
	}
	for _, row := range rows {
		if !hasRow(out, row...) {
			t.Errorf("inspect lacks the row %q:\n%s", row, out)
		}
	}
	if strings.Contains(out, "state/") || strings.Contains(out, `source "payments"`) {
		t.Errorf("inspect without --files/--config prints them:\n%s", out)
	}
}

func TestCheckpointsInspectFilesAndConfig(t *testing.T) {
	dataDir, written := fixtureDataDir(t)
	out := mustRunCheckpoints(t, "inspect", "--data-dir", dataDir, "1", "--files", "--config")
	for _, f := range written[0].Files {
		if !hasRow(out, f.Path, uintString(uint64(f.Size)), f.SHA256) {
			t.Errorf("--files lacks %s:\n%s", f.Path, out)
		}
	}
	if !hasRow(out, "recovery", "none:") || !strings.HasSuffix(out, fixtureConfig) {
		t.Errorf("inspect of checkpoint 1 lacks its recovery line or its config at the end:\n%s", out)
	}
}

func TestCheckpointsInspectJSON(t *testing.T) {
	dataDir, written := fixtureDataDir(t)
	for _, m := range written {
		var got inspectJSON
		dec := json.NewDecoder(strings.NewReader(mustRunCheckpoints(t, "inspect", "--data-dir", dataDir, uintString(m.ID), "--json")))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil {
			t.Fatal(err)
		}
		stored, err := checkpoint.Read(engine.CheckpointRootIn(dataDir), m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Manifest, stored) {
			t.Errorf("checkpoint %d: JSON manifest\n%+v\nstored\n%+v", m.ID, got.Manifest, stored)
		}
		// What Write returned, apart from fields it fills only in the
		// stored bytes (a checksum), must survive the trip too.
		if got, want := normalizeStored(t, got.Manifest), normalizeStored(t, m); !reflect.DeepEqual(got, want) {
			t.Errorf("checkpoint %d: JSON manifest\n%+v\nwritten\n%+v", m.ID, got, want)
		}
		if got.Dir != checkpoint.Dir(engine.CheckpointRootIn(dataDir), m.ID) || got.FileCount != len(m.Files) {
			t.Errorf("checkpoint %d: dir %q, file_count %d", m.ID, got.Dir, got.FileCount)
		}
	}
}

// normalizeStored returns m's JSON with the fields Encode fills (a checksum)
// removed, so a manifest as written and as stored compare equal.
func normalizeStored(t *testing.T, m checkpoint.Manifest) map[string]any {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	delete(v, "checksum")
	return v
}

// The inspect and list renderers see only validated manifests, but those
// come from disk: whatever Decode accepts must render without a panic.
func FuzzCheckpointsRender(f *testing.F) {
	for _, id := range []uint64{1, 3} {
		m := fixtureManifest(id, 10, 2)
		m.FormatVersion = checkpoint.ManifestFormatVersion
		m.Files = []checkpoint.FileEntry{{Path: "state/000005.sst", Size: 1234, SHA256: riskModuleSHA256}}
		data, err := checkpoint.Encode(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := checkpoint.Decode(data)
		if err != nil {
			return
		}
		var out bytes.Buffer
		writeListTable(&out, []listRow{{ID: m.ID, listSummary: summarize(m)}})
		writeSummary(&out, m, "dir")
		writeSources(&out, m.Sources)
		for _, op := range m.Operators {
			writeOperator(&out, op)
		}
		writeFiles(&out, m.Files)
		writeConfig(&out, m.Config)
		if err := writeJSON(io.Discard, inspectJSON{Manifest: m}); err != nil {
			t.Fatal(err)
		}
	})
}
