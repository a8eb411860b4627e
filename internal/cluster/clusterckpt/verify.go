package clusterckpt

import (
	"context"

	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/cluster/ship"
)

// Verify checks every object of the checkpoint rec completed: the global
// manifest's bytes against rec's SHA-256, and with global.Verify each task
// manifest against its reference and each state object's size and SHA-256
// (design §7 phase 1, acceptance 5). Every bad object is reported, joined,
// naming it and the checkpoint; the errors wrap ship.ErrDamaged,
// ship.ErrMissingObject, global.ErrCorrupt or ship.ErrObjectStore. It
// returns the manifest it checked against (zero when that was unreadable).
func (s *Store) Verify(ctx context.Context, rec ctlrec.Completed) (global.Manifest, error) {
	m, err := s.Manifest(ctx, rec)
	if err != nil {
		return global.Manifest{}, err
	}
	sh, err := ship.New(ctx, s.obs, ship.Options{}) // reads only: no index, no cache
	if err != nil {
		return m, err
	}
	return m, global.Verify(ctx, sh, m) // its errors name the checkpoint, the objects and the bucket

}
