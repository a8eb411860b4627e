package global_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

func TestManifestRoundTrip(t *testing.T) {
	m := assemble(t, ack("a", 100, 0, 1), ack("b", 90, 2, 3))
	data := mustEncode(t, global.EncodeManifest, m)
	got, err := global.DecodeManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	m.Checksum = got.Checksum
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("decoded manifest differs:\n%+v\n%+v", got, m)
	}
	if again := mustEncode(t, global.EncodeManifest, got); !bytes.Equal(again, data) {
		t.Fatalf("re-encoding differs:\n%s\n%s", data, again)
	}
}

// A damaged manifest is refused: a flipped digit of a position, a field
// this build does not know, a newer format.
func TestDecodeManifestRefuses(t *testing.T) {
	good := mustEncode(t, global.EncodeManifest, assemble(t, ack("a", 100, 0, 1), ack("b", 90, 2, 3)))
	for _, tc := range []struct {
		name string
		data []byte
		want error
		says string
	}{
		{"unknown field", bytes.Replace(good, []byte(`"workers"`), []byte(`"extra": 1, "workers"`), 1), global.ErrCorrupt, "unknown field"},
		{"unknown nested field", bytes.Replace(good, []byte(`"object"`), []byte(`"extra": 1, "object"`), 1), global.ErrCorrupt, "unknown field"},
		{"newer version", bytes.Replace(good, []byte(`"format_version": 1`), []byte(`"format_version": 2`), 1), global.ErrIncompatible, "format_version 2"},
		{"flipped digit", bytes.Replace(good, []byte(`"bytes_new": 400`), []byte(`"bytes_new": 500`), 1), global.ErrCorrupt, "checksum"},
		{"task entry changed", bytes.Replace(good, []byte(`"pause_ns": 4000`), []byte(`"pause_ns": 4001`), 1), global.ErrCorrupt, "cluster checkpoint 1"},
		{"not json", good[:100], global.ErrCorrupt, "global manifest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := global.DecodeManifest(tc.data)
			testutil.WantErr(t, err, tc.want, tc.says)
		})
	}
}

// A manifest built in memory is held to the decoder's rules.
func TestEncodeManifestRefusesInvalid(t *testing.T) {
	m := assemble(t, ack("a", 100, 0, 1), ack("b", 90, 2, 3))
	for _, tc := range []struct {
		name   string
		change func(*global.Manifest)
		says   string
	}{
		{"entry differs", func(m *global.Manifest) { m.Tasks[1].Entry.Inputs = map[string]uint64{testSource: 7} }, "differs from the checkpoint's"},
		{"task missing", func(m *global.Manifest) { m.Tasks = m.Tasks[:3] }, "[96,128)"},
		{"unsorted", func(m *global.Manifest) { m.Tasks[0], m.Tasks[1] = m.Tasks[1], m.Tasks[0] }, "not sorted"},
		{"no workers", func(m *global.Manifest) { m.Workers = nil }, "no workers"},
		{"files", func(m *global.Manifest) { m.Checkpoint.Files = m.Checkpoint.Files[1:] }, "checksum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := m
			bad.Tasks = append([]global.TaskPart(nil), m.Tasks...)
			tc.change(&bad)
			_, err := global.EncodeManifest(bad)
			testutil.WantErr(t, err, global.ErrInvalid, tc.says)
		})
	}
	// The checkpoint's own rules apply: they are checkpoint's errors.
	bad := m
	bad.Checkpoint.Created = bad.Checkpoint.Completed.Add(1)
	if _, err := global.EncodeManifest(bad); !errors.Is(err, checkpoint.ErrCorruptManifest) {
		t.Fatalf("completed before created: got %v", err)
	}
}
