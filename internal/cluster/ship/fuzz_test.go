package ship

import (
	"bytes"
	"testing"
)

// FuzzDecode feeds the task manifest decoder arbitrary bytes, as a bucket
// anyone can write to would: it must never panic, and whatever it accepts
// must be exactly what Encode writes for the result.
func FuzzDecode(f *testing.F) {
	good, err := Encode(validManifest())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"format_version": 1}`))
	f.Add([]byte(`{"format_version": 2}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if err != nil {
			return
		}
		again, err := Encode(m)
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("accepted bytes are not the encoding of the result: %v", err)
		}
		if err := m.Task().validate(); err != nil {
			t.Fatalf("accepted a manifest whose task is invalid: %v", err)
		}
	})
}
