package engine

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// TestUndeclaredStateWarning: a config state block whose name the module
// does not declare, while it declares others, is most likely a typo
// (`state "sen"` for the module's "seen"): validate and run warn, with the
// block's position. A module that declares no state may still use the
// name undeclared (ABI.md §6.10), so that config passes silently, as does
// a block naming a declared state.
func TestUndeclaredStateWarning(t *testing.T) {
	skipInRacePass(t)
	s := newDedupSetup(t)
	s.configTTL, s.stateName, s.moduleTTLMillis = "1m", "sen", 600_000 // the module declares "seen"
	cfg := s.load(t)
	reports, err := Validate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	pos := config.Pos(cfg.Operators[0].States[0].Range)
	want := []string{pos, `operator "dedup"`, `state "sen"`, `declares "seen"`, "typo"}
	if w := reports[0].Warnings; len(w) != 1 || !containsAll(w[0].String(), want) {
		t.Fatalf("validate warnings %v, want one with %q", w, want)
	}

	var logged strings.Builder
	logger := hclog.New(&hclog.LoggerOptions{Level: hclog.Info, Output: &logged})
	runDedup(t, cfg, Options{Logger: logger}, dedupRecord("a", "1"))
	if !containsAll(logged.String(), want) {
		t.Fatalf("run log lacks the warning %q:\n%s", want, logged.String())
	}

	for _, quiet := range []struct {
		name      string
		stateName string
		moduleTTL int64
	}{
		{"block names the declared state", "seen", 600_000},
		{"module declares no state", "sen", 0},
	} {
		s.stateName, s.moduleTTLMillis = quiet.stateName, quiet.moduleTTL
		reports, err := Validate(context.Background(), s.load(t))
		if err != nil || len(reports[0].Warnings) != 0 {
			t.Errorf("%s: %v, warnings %v; want none", quiet.name, err, reports[0].Warnings)
		}
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func TestUndeclaredStateWarnings(t *testing.T) {
	decl := func(names ...string) []host.StateDeclaration {
		var out []host.StateDeclaration
		for _, n := range names {
			out = append(out, host.StateDeclaration{Name: n, Version: 1})
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		blocks []string
		decls  []host.StateDeclaration
		want   []string // the warned blocks
	}{
		{"no blocks", nil, decl("seen"), nil},
		{"module declares nothing", []string{"sen"}, nil, nil},
		{"every block declared", []string{"seen", "count"}, decl("count", "seen"), nil},
		{"typo", []string{"sen", "count"}, decl("seen", "count"), []string{"sen"}},
		{"declared twice", []string{"x"}, decl("seen", "seen"), []string{"x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oc := &config.Operator{Name: "op"}
			for _, b := range tc.blocks {
				oc.States = append(oc.States, config.StateConfig{Name: b})
			}
			var got []string
			for _, w := range undeclaredStateWarnings(oc, tc.decls) {
				got = append(got, w.State)
				if !slices.IsSorted(w.Declared) || len(slices.Compact(slices.Clone(w.Declared))) != len(w.Declared) {
					t.Errorf("declared %q: not sorted and distinct", w.Declared)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("warned %q, want %q", got, tc.want)
			}
		})
	}
	w := UndeclaredStateWarning{Operator: "dedup", State: "sen", Pos: "p.hcl:3:3", Declared: []string{"count", "seen"}}
	if want := `p.hcl:3:3: operator "dedup": state "sen" of the config is not a state the module declares (it declares "count", "seen"): a typo?`; !strings.HasPrefix(w.String(), want) {
		t.Fatalf("message %q, want it to start with %q", w, want)
	}
}
