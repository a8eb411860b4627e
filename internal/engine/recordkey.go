package engine

import (
	"fmt"

	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/natsio"
)

// recordKey is the key of m for op: its key block's extraction, refused
// when the state layout cannot hold it. Sources and Exec share it, so a
// record gets the same key, or the same dead-letter reason, in both.
func (op *operator) recordKey(m *natsio.Message) ([]byte, error) {
	key, err := op.keyer.Extract(m.Subject, m.Header, m.Data)
	if err == nil && len(key) > state.MaxKeyLen {
		err = fmt.Errorf("key of %d bytes is over the %d-byte limit", len(key), state.MaxKeyLen)
	}
	return key, err
}
