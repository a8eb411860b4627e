package global

import (
	"context"
	"errors"
	"fmt"

	"github.com/wasmstream/wasmstream/internal/cluster/ship"
)

// Verify reads every task checkpoint of m from sh's bucket and checks each
// object's size and SHA-256 without keeping it: `checkpoints verify`
// against the Object Store (design §7 phase 1, acceptance 5). It returns
// one error per bad task checkpoint, joined, each naming the task and the
// objects, wrapping ErrCorrupt or ship's ErrDamaged, ErrMissingObject or
// ErrObjectStore.
func Verify(ctx context.Context, sh *ship.Shipper, m Manifest) error {
	if err := m.validate(); err != nil {
		return fmt.Errorf("%w: manifest of cluster checkpoint %d: %w", ErrInvalid, m.ID(), err)
	}
	gs := groups(m)
	var errs []error
	for _, g := range gs {
		tm, err := g.fetch(ctx, sh)
		if err == nil {
			err = sh.Verify(ctx, tm)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cluster checkpoint %d: %d of %d task checkpoints bad: %w", m.ID(), len(errs), len(gs), err)
	}
	return nil
}
