package config

import (
	"bytes"
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/wasmstream/wasmstream/internal/ttlspec"
)

// StateConfig is an operator's `state "NAME" { ... }` block: settings of one named state.
type StateConfig struct {
	Name string
	// TTL is the state's time to live; TTL.Duration is 0 when the block sets none.
	TTL   ttlspec.TTL
	Range hcl.Range
}

// HasTTL reports whether the block gives the state a time to live.
func (s StateConfig) HasTTL() bool { return s.TTL.Duration > 0 }

var stateSchema = &hcl.BodySchema{Attributes: attributes("ttl", "ttl_update", "ttl_visibility", "ttl_time")}

// decodeStates reads an operator's state blocks, one per state name.
func (d *decoder) decodeStates(blocks hcl.Blocks, owner string) []StateConfig {
	var out []StateConfig
	seen := map[string]bool{}
	for _, b := range blocks {
		if b.Type != "state" {
			continue
		}
		s, ok := d.decodeState(b, owner)
		switch {
		case !ok:
		case seen[s.Name]:
			d.errorf(b.DefRange, "%s: state %q is configured twice; merge the two blocks", owner, s.Name)
		default:
			seen[s.Name] = true
			out = append(out, s)
		}
	}
	return out
}

// decodeState reads one state block.
func (d *decoder) decodeState(b *hcl.Block, owner string) (StateConfig, bool) {
	name := b.Labels[0]
	where := fmt.Sprintf("%s: state %q", owner, name)
	a, _ := d.body(b, stateSchema, where)
	if name == "" || len(name) > 1024 || bytes.IndexByte([]byte(name), 0) >= 0 {
		d.errorf(b.DefRange, "%s: a state name has 1 to 1024 bytes and no NUL byte; for a map state give the map's name", where)
		return StateConfig{}, false
	}
	s := StateConfig{Name: name, Range: b.DefRange}
	s.TTL.Duration = a.duration("ttl", 0)
	s.TTL.Update = parseTTLWord(a, "ttl_update", ttlspec.ParseUpdateType, ttlspec.OnCreateAndWrite, ttlspec.OnReadAndWrite)
	s.TTL.Visibility = parseTTLWord(a, "ttl_visibility", ttlspec.ParseVisibility, ttlspec.NeverReturnExpired, ttlspec.ReturnExpiredIfNotCleaned)
	s.TTL.TimeDomain = parseTTLWord(a, "ttl_time", ttlspec.ParseTimeDomain, ttlspec.ProcessingTime, ttlspec.EventTime)
	if !s.HasTTL() && !a.failed["ttl"] {
		for _, attr := range []string{"ttl_update", "ttl_visibility", "ttl_time"} {
			if a.has(attr) {
				a.warnf(attr, `has no effect without ttl; add e.g. ttl = "10m"`)
			}
		}
	}
	return s, true
}

// parseTTLWord reads one of the TTL option words; the first word is the default.
func parseTTLWord[T interface {
	~uint8
	String() string
}](a *attrs, attr string, parse func(string) (T, error), words ...T) T {
	allowed := make([]string, len(words))
	for i, w := range words {
		allowed[i] = w.String()
	}
	v, _ := parse(a.enum(attr, allowed[0], allowed...))
	return v
}
