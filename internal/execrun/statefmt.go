package execrun

import (
	"encoding/json"
	"io"
	"text/tabwriter"

	"github.com/wasmstream/wasmstream/internal/engine"
)

// State printing for other commands (wasmstream state get and scan): the
// same table and JSON lines as exec's, so state reads the same wherever it
// is shown.

// StateValueOf is one stored state entry as exec shows it: a map entry's
// stored name (name 0x00 mapKey) split into its state and map key.
func StateValueOf(key []byte, name string, value []byte, expiresAt int64) StateValue {
	return stateValues([]engine.StateEntry{{Key: string(key), Name: name, Value: value, ExpiresAt: expiresAt}})[0]
}

// WriteStateTable prints vs as exec's state table, headed by the operator.
func WriteStateTable(w io.Writer, operator string, vs []StateValue) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	writeState(tw, &Result{Operator: operator, State: vs})
	return tw.Flush()
}

// StateLine is a state entry's JSON line as exec prints it ("type":
// "state"), plus where it was read, for a caller to fill in.
type StateLine struct {
	stateLine
	Operator   string `json:"operator"`
	KeyGroup   int    `json:"key_group"`
	Checkpoint uint64 `json:"checkpoint,omitempty"` // 0: read live
}

// NewStateLine is s's JSON line.
func NewStateLine(s StateValue) StateLine { return StateLine{stateLine: jsonState(s)} }

// WriteStateLines prints lines as JSON lines.
func WriteStateLines(w io.Writer, lines []StateLine) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			return err
		}
	}
	return nil
}
