package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// Warning is a finding of validate and of a run's start that does not stop
// the pipeline: TTLWarning, UndeclaredStateWarning.
type Warning interface{ String() string }

// stateWarnings are the warnings about an operator's states, given the
// module's declarations and the effective TTLs: validate prints them, a
// run logs them once.
func stateWarnings(cfg *config.Pipeline, oc *config.Operator, decls []host.StateDeclaration, eff map[string]stateTTL) []Warning {
	var out []Warning
	for _, w := range ttlWarnings(cfg, oc, eff) {
		out = append(out, w)
	}
	for _, w := range undeclaredStateWarnings(oc, decls) {
		out = append(out, w)
	}
	return out
}

// UndeclaredStateWarning is a state block of the config whose name the
// module does not declare although it declares others: most likely a typo
// (`state "sen"` for "seen"), whose settings then reach no state. A module
// may use a state without declaring it (ABI.md §6.10), so it is a warning,
// and a module that declares nothing gets none.
type UndeclaredStateWarning struct {
	Operator, State string
	Pos             string   // the state block's position in the config
	Declared        []string // the states the module declares, sorted
}

func (w UndeclaredStateWarning) String() string {
	quoted := make([]string, len(w.Declared))
	for i, name := range w.Declared {
		quoted[i] = fmt.Sprintf("%q", name)
	}
	return fmt.Sprintf("%s: operator %q: state %q of the config is not a state the module declares (it declares %s): a typo? "+
		"Its settings apply only if the module uses %q without declaring it (allowed, ABI.md §6.10)",
		w.Pos, w.Operator, w.State, strings.Join(quoted, ", "), w.State)
}

// undeclaredStateWarnings compares the config's state blocks with the
// module's declarations.
func undeclaredStateWarnings(oc *config.Operator, decls []host.StateDeclaration) []UndeclaredStateWarning {
	if len(decls) == 0 {
		return nil
	}
	declared := make([]string, 0, len(decls))
	for _, d := range decls {
		declared = append(declared, d.Name)
	}
	slices.Sort(declared)
	declared = slices.Compact(declared)
	var out []UndeclaredStateWarning
	for _, s := range oc.States {
		if _, found := slices.BinarySearch(declared, s.Name); !found {
			out = append(out, UndeclaredStateWarning{Operator: oc.Name, State: s.Name, Pos: config.Pos(s.Range), Declared: declared})
		}
	}
	return out
}
