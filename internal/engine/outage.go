package engine

import (
	"time"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// outageBudget is how long the pipeline rides out NATS being unreachable
// (server.outage_budget): the sink resends unacknowledged outputs for that
// long, and the coordinator does not count checkpoints failed by the
// outage before it. A config built without the parser has 0: the default.
func outageBudget(cfg *config.Pipeline) time.Duration {
	if cfg.Server.OutageBudget > 0 {
		return cfg.Server.OutageBudget
	}
	return config.DefaultOutageBudget
}
