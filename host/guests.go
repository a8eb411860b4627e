package host

import (
	"context"
	"errors"
	"sync"

	"github.com/tetratelabs/wazero/api"
)

// errRuntimeClosed: the Runtime was closed; its modules make no more
// instances.
var errRuntimeClosed = errors.New("runtime closed")

// guestSet is the instances made through one Runtime and not closed yet.
// The wazero runtime is shared (shared.go), so closing it no longer closes
// them: Runtime.Close closes them instead.
type guestSet struct {
	mu     sync.Mutex
	open   map[api.Module]struct{}
	closed bool
}

func newGuestSet() *guestSet { return &guestSet{open: map[api.Module]struct{}{}} }

// add records g, or closes it and fails once the Runtime is closed.
func (s *guestSet) add(ctx context.Context, g api.Module) error {
	s.mu.Lock()
	closed := s.closed
	if !closed {
		s.open[g] = struct{}{}
	}
	s.mu.Unlock()
	if closed {
		_ = g.Close(ctx)
		return errRuntimeClosed
	}
	return nil
}

// isClosed reports whether the Runtime was closed.
func (s *guestSet) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// close closes g and forgets it.
func (s *guestSet) close(ctx context.Context, g api.Module) error {
	s.mu.Lock()
	delete(s.open, g)
	s.mu.Unlock()
	return g.Close(ctx)
}

// closeAll closes every open guest; it reports whether this call closed
// the set (false: it was closed before).
func (s *guestSet) closeAll(ctx context.Context) bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	s.closed = true
	open := s.open
	s.open = nil
	s.mu.Unlock()
	for g := range open {
		_ = g.Close(ctx)
	}
	return true
}
