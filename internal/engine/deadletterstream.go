package engine

import (
	"context"
	"fmt"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// EnsureDeadLetterStream creates DeadLetterStream when it is missing, with
// cfg's replicas for it (config.Pipeline.DeadLetterReplicas), and checks
// an existing one. `wasmstream deploy` calls it so that a cluster has it
// before any worker starts.
func EnsureDeadLetterStream(ctx context.Context, cfg *config.Pipeline, conn *natsio.Conn) error {
	spec := natsio.StreamSpec{Name: DeadLetterStream, Subjects: []string{config.DeadLetterSubjects}, Replicas: cfg.DeadLetterReplicas()}
	if _, err := conn.EnsureStream(ctx, spec); err != nil {
		return fmt.Errorf("dead-letter stream %s: %w", DeadLetterStream, err)
	}
	return nil
}
