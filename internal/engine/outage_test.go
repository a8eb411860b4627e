package engine

import (
	"testing"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// The config parser cannot import natsio (a leaf package imports no
// runtime), so the default outage budget is written twice: keep them equal.
func TestOutageBudgetDefaultsAgree(t *testing.T) {
	if config.DefaultOutageBudget != natsio.DefaultOutageBudget {
		t.Fatalf("config.DefaultOutageBudget %s, natsio.DefaultOutageBudget %s", config.DefaultOutageBudget, natsio.DefaultOutageBudget)
	}
	if got := outageBudget(&config.Pipeline{}); got != config.DefaultOutageBudget {
		t.Fatalf("outageBudget of a config without one = %s", got)
	}
}
