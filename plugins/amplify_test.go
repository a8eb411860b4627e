package plugins

import (
	"context"
	"errors"
	"testing"
)

// A 21-byte module whose export section claims 177 million exports: wazero
// v1.12.0's decoder allocates for the claimed count before reading one
// (about 12 GB, 10 s) and only then fails. Found by FuzzValidate. The
// structural pre-check (host.CheckStructure) refuses it before wazero sees
// it; were it gone, this test would take gigabytes and seconds again.
func TestDecoderAllocationAmplification(t *testing.T) {
	_, err := Validate(context.Background(), fixture(t, "amplify-export-count.bin"), Limits{})
	if !errors.Is(err, ErrNotWasm) {
		t.Fatalf("got %v, want ErrNotWasm", err)
	}
}
