package engine

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
)

// stateTTL is the effective TTL of one named state and where it came from.
type stateTTL struct {
	TTL state.TTL
	// From is "config", "module", or "module (overrides config ttl 1m0s)";
	// a module's "never expires" over a config TTL is recorded with a zero
	// TTL and From saying so.
	From string
}

// effectiveTTLs merges an operator's config state blocks with the state
// declarations of its module (ABI.md §6.10): a declaration with a TTL, or
// with "never expires", overrides the config.
func effectiveTTLs(oc *config.Operator, decls []host.StateDeclaration) map[string]stateTTL {
	out := map[string]stateTTL{}
	for _, s := range oc.States {
		if s.HasTTL() {
			out[s.Name] = stateTTL{TTL: s.TTL, From: "config"}
		}
	}
	for _, d := range decls {
		if d.TTLMillis == abi.TTLUnset {
			continue
		}
		from := "module"
		if prev, ok := out[d.Name]; ok {
			from = fmt.Sprintf("module (overrides config ttl %s)", prev.TTL.Duration)
		}
		out[d.Name] = stateTTL{TTL: declaredTTL(d), From: from}
	}
	return out
}

// declaredTTL converts a declaration with a TTL (or TTLNever: zero TTL).
func declaredTTL(d host.StateDeclaration) state.TTL {
	t, _ := state.DeclaredTTL(d.TTLMillis, d.Flags)
	return t
}

// backendTTLs is the state.BackendOptions.TTL of effective TTLs: states a
// module declared "never expires" have none.
func backendTTLs(eff map[string]stateTTL) map[string]state.TTL {
	out := map[string]state.TTL{}
	for name, s := range eff {
		if s.TTL.Duration > 0 {
			out[name] = s.TTL
		}
	}
	return out
}

// TTLWarning is a TTL shorter than the redelivery horizon of a source the
// operator reads: a duplicate that arrives later passes a dedup set.
type TTLWarning struct {
	Operator, State, Source string
	TTL, MaxDuplicateDelay  time.Duration
}

func (w TTLWarning) String() string {
	return fmt.Sprintf("operator %q state %q: ttl %s is shorter than source %q's max_duplicate_delay %s: "+
		"a duplicate arriving later than %s is processed again; raise the ttl to at least %s, or lower max_duplicate_delay if duplicates cannot be that late",
		w.Operator, w.State, w.TTL, w.Source, w.MaxDuplicateDelay, w.TTL, w.MaxDuplicateDelay)
}

// ttlWarnings compares each TTL with the max_duplicate_delay of every
// source the operator reads.
func ttlWarnings(cfg *config.Pipeline, oc *config.Operator, eff map[string]stateTTL) []TTLWarning {
	var out []TTLWarning
	for _, name := range slices.Sorted(maps.Keys(eff)) {
		ttl := eff[name].TTL.Duration
		for _, in := range oc.Inputs {
			src := cfg.Source(in)
			if src != nil && ttl > 0 && ttl < src.MaxDuplicateDelay {
				out = append(out, TTLWarning{Operator: oc.Name, State: name, Source: in, TTL: ttl, MaxDuplicateDelay: src.MaxDuplicateDelay})
			}
		}
	}
	return out
}

// ttlLogArgs describes one effective TTL for a log line.
func ttlLogArgs(name string, s stateTTL) []any {
	if s.TTL.Duration == 0 {
		return []any{"state", name, "ttl", "never expires", "from", s.From}
	}
	return []any{"state", name, "ttl", s.TTL.Duration, "update", s.TTL.Update.String(),
		"visibility", s.TTL.Visibility.String(), "time", s.TTL.TimeDomain.String(), "from", s.From}
}

// batchClock is a task's processing clock for state TTLs: read from the
// pipeline's clock once per guest batch (and per sweep), so all records of
// a batch share one "now", as they share processing_time (ABI.md §6.8),
// and the clock costs one read per batch instead of one per record. Only
// the task goroutine uses it.
type batchClock struct {
	source func() time.Time
	ns     int64
}

func newBatchClock(source func() time.Time) *batchClock {
	if source == nil {
		source = time.Now
	}
	c := &batchClock{source: source}
	c.tick()
	return c
}

// tick reads the pipeline's clock.
func (c *batchClock) tick() { c.ns = c.source().UnixNano() }

// read is the state.BackendOptions.Clock.
func (c *batchClock) read() int64 { return c.ns }
