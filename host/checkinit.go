package host

import (
	"context"
	"errors"
)

// CheckInit is the start-up check that `wasmstream validate`, `run` and
// `operator push` make of a compiled module: it instantiates m once with
// no state, runs its WASI initialiser and ws_init with cfg.Config under
// cfg's deadline (BatchTimeout) and the runtime's memory limit, and
// returns the states ws_init declared. The instance is closed before
// CheckInit returns. ws_init has no current record, so a guest that
// reaches state or emits from it fails with ErrABIMisuse (NO_RECORD).
// Errors are Instantiate's.
func (m *Module) CheckInit(ctx context.Context, cfg InstanceConfig) ([]StateDeclaration, error) {
	inst, err := m.Instantiate(ctx, cfg, NoState{})
	if err != nil {
		return nil, err
	}
	defer inst.Close(ctx)
	return inst.Declarations(), nil
}

// NoState is the KeyedState of an instance that must never reach state:
// one made only to run ws_init (CheckInit) or ws_migrate, where the host
// refuses state calls before they get here (NO_RECORD). Every call fails.
type NoState struct{}

var errNoState = errors.New("no state: this instance runs only ws_init or ws_migrate")

// SetCurrentRecord fails: there is no state.
func (NoState) SetCurrentRecord([]byte, int64) error { return errNoState }

// Get fails: there is no state.
func (NoState) Get([]byte) ([]byte, bool, error) { return nil, false, errNoState }

// Put fails: there is no state.
func (NoState) Put([]byte, []byte) error { return errNoState }

// Delete fails: there is no state.
func (NoState) Delete([]byte) error { return errNoState }

// BeginBatch does nothing.
func (NoState) BeginBatch() {}

// CommitBatch does nothing.
func (NoState) CommitBatch() {}

// RollbackBatch does nothing.
func (NoState) RollbackBatch() {}
