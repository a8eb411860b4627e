package global

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// DeadLetterMetaPrefix starts the name of an operator's dead-letter list
// in the state store's metadata: "engine/deadletters/<operator>"
// (internal/engine/deadletters.go). The list is a JSON array of
// {"source": name, "sequence": n}, one per input record the operator
// isolated, so that a replay skips it again.
const DeadLetterMetaPrefix = "engine/deadletters/"

// deadLetter is one element of a dead-letter list, as the engine writes it.
type deadLetter struct {
	Source   string `json:"source"`
	Sequence uint64 `json:"sequence"`
}

// MergeDeadLetterLists returns the union of dead-letter lists (design
// §5.4 step 5: entries are keyed by source and sequence, so a union loses
// nothing and counts nothing twice), sorted by source, then sequence, in
// the engine's encoding (json.Marshal of the array; the engine's own order
// is a map's, so any order reads the same). A value that is not such a
// list is refused: the lists come from the Object Store. No values give [].
func MergeDeadLetterLists(values [][]byte) ([]byte, error) {
	set := map[deadLetter]bool{}
	for i, v := range values {
		list, err := decodeStrict[[]deadLetter](v)
		if err != nil {
			return nil, fmt.Errorf("%w: dead-letter list %d of %d: %v", ErrCorrupt, i+1, len(values), err)
		}
		for _, d := range list {
			set[d] = true
		}
	}
	merged := slices.SortedFunc(maps.Keys(set), func(a, b deadLetter) int {
		return cmp.Or(strings.Compare(a.Source, b.Source), cmp.Compare(a.Sequence, b.Sequence))
	})
	if merged == nil {
		merged = []deadLetter{} // the engine writes [] for an empty list, never null
	}
	return json.Marshal(merged)
}
