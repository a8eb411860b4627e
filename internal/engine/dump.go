package engine

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/state"
)

// StateEntry is one state value of a checkpoint, for tools and tests.
type StateEntry struct {
	Operator string
	KeyGroup int
	Name     string
	Key      string
	Value    []byte
	// ExpiresAt is the value's TTL expiry, Unix nanoseconds (in the time
	// domain of its state's TTL); 0 when it never expires. An entry past its
	// expiry is invisible to the guest until cleanup removes it.
	ExpiresAt int64
}

// DumpCheckpointState returns every operator state entry of checkpoint id
// under root, in operator then key order. It reads a copy of the checkpoint
// (Pebble may write to a store it opens), so the checkpoint stays intact.
func DumpCheckpointState(root string, id uint64) ([]StateEntry, error) {
	m, err := checkpoint.Read(root, id)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "wasmstream-dump-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "state")
	if err := checkpoint.RestoreState(root, id, dir); err != nil {
		return nil, err
	}
	st, err := state.Open(dir, state.Options{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("checkpoint %d: %w", id, err)
	}
	defer st.Close()
	var out []StateEntry
	for _, op := range m.Operators {
		all := state.KeyGroupRange{Start: 0, End: op.MaxParallelism}
		err := st.ScanValues(op.Name, all, func(kg int, name, key []byte, v state.Value) error {
			e := StateEntry{Operator: op.Name, KeyGroup: kg, Name: string(name), Key: string(key), Value: append([]byte(nil), v.Data...)}
			if v.HasExpiry {
				e.ExpiresAt = v.ExpiresAt
			}
			out = append(out, e)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("checkpoint %d: operator %q: %w", id, op.Name, err)
		}
	}
	return out, nil
}
