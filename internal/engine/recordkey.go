package engine

import (
	"fmt"

	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/natsio"
)

// recordKey is the key of m on op's input: the extraction of its key
// rule, refused when the state layout cannot hold it. Sources and Exec
// share it, so a record gets the same key, or the same dead-letter reason,
// in both.
func (op *operator) recordKey(input uint32, m *natsio.Message) ([]byte, error) {
	return checkedKey(op.keyers[input].Extract(m.Subject, m.Header, m.Data))
}

// checkedKey refuses a key the state layout cannot hold.
func checkedKey(key []byte, err error) ([]byte, error) {
	if err == nil && len(key) > state.MaxKeyLen {
		err = fmt.Errorf("key of %d bytes is over the %d-byte limit", len(key), state.MaxKeyLen)
	}
	return key, err
}
