package global_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

func TestAckRoundTrip(t *testing.T) {
	a := ack("a", 100, 0, 1)
	data := mustEncode(t, global.EncodeAck, a)
	got, err := global.DecodeAck(data)
	if err != nil {
		t.Fatal(err)
	}
	a.FormatVersion, a.Checksum = global.AckFormatVersion, got.Checksum
	if !reflect.DeepEqual(got, a) {
		t.Fatalf("decoded ack differs:\n%+v\n%+v", got, a)
	}
	if again := mustEncode(t, global.EncodeAck, got); !bytes.Equal(again, data) {
		t.Fatalf("re-encoding differs:\n%s\n%s", data, again)
	}
}

// Bytes that are not what EncodeAck writes are refused: a newer format as
// incompatible, anything else as corrupt, with the reason in the message.
func TestDecodeAckRefuses(t *testing.T) {
	good := mustEncode(t, global.EncodeAck, ack("a", 100, 0, 1))
	for _, tc := range []struct {
		name string
		data []byte
		want error
		says string
	}{
		{"unknown field", bytes.Replace(good, []byte(`"worker"`), []byte(`"extra": 1, "worker"`), 1), global.ErrCorrupt, "unknown field"},
		{"newer version", bytes.Replace(good, []byte(`"format_version": 1`), []byte(`"format_version": 2`), 1), global.ErrIncompatible, "format_version 2"},
		{"no version", bytes.Replace(good, []byte(`"format_version": 1,`), nil, 1), global.ErrCorrupt, "format_version missing"},
		{"flipped digit", bytes.Replace(good, []byte(`"last_sequence": 100`), []byte(`"last_sequence": 101`), 1), global.ErrCorrupt, "checksum mismatch"},
		{"reformatted", bytes.ReplaceAll(good, []byte("\n  "), []byte("\n ")), global.ErrCorrupt, "canonical"},
		{"trailing data", append(bytes.Clone(good), "{}"...), global.ErrCorrupt, "after top-level value"},
		{"not json", good[:len(good)/2], global.ErrCorrupt, "ack"},
		{"broken rule", bytes.Replace(good, []byte(`"worker": "a"`), []byte(`"worker": ""`), 1), global.ErrCorrupt, "worker id missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := global.DecodeAck(tc.data)
			testutil.WantErr(t, err, tc.want, tc.says)
		})
	}
}

func TestEncodeAckRefusesInvalid(t *testing.T) {
	a := ack("a", 100, 0)
	a.Tasks[0].Operator = "other"
	_, err := global.EncodeAck(a)
	testutil.WantErr(t, err, global.ErrInvalid, `worker "a"`, `operator "other"`, "not listed")
	a = ack("a", 100, 0)
	a.Tasks[0].Entry.End = testMaxPar + 1
	_, err = global.EncodeAck(a)
	testutil.WantErr(t, err, global.ErrInvalid, "[0,129)", "inside [0,128)")
}
