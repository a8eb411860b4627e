package ship

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Verify reads every object of m from the bucket and checks its size and
// SHA-256 without keeping it: `checkpoints verify` against the Object Store
// (design §7 phase 1, acceptance 5). It returns one error per bad object,
// joined, each naming the object and wrapping ErrDamaged, ErrMissingObject
// or ErrObjectStore.
func (s *Shipper) Verify(ctx context.Context, m TaskManifest) error {
	var errs []error
	seen := map[string]bool{}
	for _, f := range m.Files {
		if seen[f.SHA256] {
			continue
		}
		seen[f.SHA256] = true
		object := ObjectName(f.SHA256)
		size, sum, err := s.copyObject(ctx, object, io.Discard)
		if err == nil {
			err = s.checkContent(object, f, size, sum)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("task checkpoint of operator %q range %s: %d of %d objects bad: %w", m.Operator, m.Range(), len(errs), len(seen), err)
	}
	return nil
}
