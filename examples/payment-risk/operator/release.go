package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

// release is the release of the operator this build is, chosen at build
// time with -ldflags "-X main.release=N", so that one source shows an
// upgrade (docs/upgrades.md, README "Upgrading the operator"):
//
//   - "1" (default): the total is 8 bytes, little-endian (state "total" v1);
//   - "2": the total is JSON {"cents":N}, state "total" v2, with a migration
//     from v1 that converts the stored totals;
//   - "3": state "total" v3 with a broken migration from v2, which refuses
//     every value: the upgrade to it is rolled back.
//
// Outputs are the same in every release.
var release = "1"

// totalState is the account total in the encoding of this release.
var totalState = newTotalState(release)

// centsJSON is release 2's encoding of a total.
type centsJSON struct {
	Cents *int64 `json:"cents"`
}

// totalCodec stores a total as {"cents":N}.
type totalCodec struct{}

func (totalCodec) Encode(dst []byte, v int64) []byte {
	return fmt.Appendf(dst, `{"cents":%d}`, v)
}

func (totalCodec) Decode(b []byte) (int64, error) {
	var c centsJSON
	if err := json.Unmarshal(b, &c); err != nil || c.Cents == nil {
		return 0, fmt.Errorf("total %q is not {\"cents\":N}", b)
	}
	return *c.Cents, nil
}

func newTotalState(release string) *wasmstream.ValueState[int64] {
	switch release {
	case "2":
		return wasmstream.NewValueState[int64]("total", totalCodec{}).
			Declare(wasmstream.StateOptions{Version: 2, Migrate: totalFromV1})
	case "3":
		return wasmstream.NewValueState[int64]("total", totalCodec{}).
			Declare(wasmstream.StateOptions{Version: 3, Migrate: totalFromV2Broken})
	}
	return wasmstream.NewValueState("total", wasmstream.Int64Codec)
}

// totalFromV1 converts an 8-byte little-endian total to {"cents":N}.
func totalFromV1(_ []byte, from int32, old []byte) ([]byte, bool, error) {
	if from != 1 || len(old) != 8 {
		return nil, false, fmt.Errorf("cannot convert a v%d total of %d bytes; this release migrates v1 (8 bytes)", from, len(old))
	}
	return totalCodec{}.Encode(nil, int64(binary.LittleEndian.Uint64(old))), true, nil
}

// errNotImplemented is release 3's deliberate bug.
var errNotImplemented = errors.New("the v2 → v3 conversion is not written yet")

// totalFromV2Broken is a migration with a bug: it refuses every value.
func totalFromV2Broken([]byte, int32, []byte) ([]byte, bool, error) {
	return nil, false, errNotImplemented
}
