package acceptance

import (
	"fmt"
	"sort"
	"testing"
)

// perKeyReport is the per-key sequence check of the stored outputs
// (design §6, check 2): per key, the outputs are 1..n once each, in
// increasing order, and each carries the state of exactly its first v
// records (count == v, sum == v(v+1)/2). A record applied twice, or one
// lost and replayed into state, changes count and sum of every later
// output of its key, so it shows even when deduplication hid the output
// itself.
type perKeyReport struct {
	keys, outputs int
	missing       int // seq 1..n of a key with no output
	repeated      int // outputs whose (key, seq) was stored before
	wrongState    int // outputs whose count or sum is not that of seq records
	outOfRange    int // outputs of an unknown key, or with seq < 1 or > n
	inversions    int // outputs stored after a higher seq of their key
	examples      []string
}

// checkPerKey checks outs, in stream order, against want: the number of
// records of each key.
func checkPerKey(outs []sumOutput, want map[string]int64) perKeyReport {
	r := perKeyReport{keys: len(want), outputs: len(outs)}
	seen := make(map[string]map[int64]bool, len(want))
	highest := make(map[string]int64, len(want))
	for _, o := range outs {
		n, known := want[o.K]
		if o.Count != o.V || o.Sum != o.V*(o.V+1)/2 {
			r.wrongState++
			r.note("key %s seq %d: count %d, sum %d; want %d, %d", o.K, o.V, o.Count, o.Sum, o.V, o.V*(o.V+1)/2)
		}
		switch {
		case !known || o.V < 1 || o.V > n:
			r.outOfRange++
			r.note("key %s seq %d: the key has %d records", o.K, o.V, n)
			continue
		case seen[o.K][o.V]:
			r.repeated++
			r.note("key %s seq %d stored again", o.K, o.V)
			continue
		case o.V < highest[o.K]:
			r.inversions++
			r.note("key %s seq %d stored after seq %d", o.K, o.V, highest[o.K])
		}
		if seen[o.K] == nil {
			seen[o.K] = map[int64]bool{}
		}
		seen[o.K][o.V] = true
		highest[o.K] = max(highest[o.K], o.V)
	}
	r.countMissing(seen, want)
	return r
}

// countMissing counts, in key order for stable examples, every seq of
// want that seen lacks.
func (r *perKeyReport) countMissing(seen map[string]map[int64]bool, want map[string]int64) {
	ks := make([]string, 0, len(want))
	for k := range want {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		for v := int64(1); v <= want[k]; v++ {
			if !seen[k][v] {
				r.missing++
				r.note("key %s seq %d: no output", k, v)
			}
		}
	}
}

func (r *perKeyReport) note(format string, args ...any) {
	if len(r.examples) < 10 {
		r.examples = append(r.examples, fmt.Sprintf(format, args...))
	}
}

// ok reports whether the check passed. Inversions are allowed only where
// a test expects them (a frozen zombie's queued publishes landing late,
// design §5.3: TestCoordinatorFreeze).
func (r perKeyReport) ok(allowInversions bool) bool {
	return r.missing == 0 && r.repeated == 0 && r.wrongState == 0 && r.outOfRange == 0 && (allowInversions || r.inversions == 0)
}

func (r perKeyReport) String() string {
	return fmt.Sprintf("%d keys, %d outputs: %d missing, %d repeated, %d with wrong state, %d out of range, %d order inversions",
		r.keys, r.outputs, r.missing, r.repeated, r.wrongState, r.outOfRange, r.inversions)
}

// require fails the test unless the check passed, with inversions only
// where allowInversions.
func (r perKeyReport) require(t *testing.T, what string, allowInversions bool) {
	t.Helper()
	if !r.ok(allowInversions) {
		t.Errorf("%s: per-key check: %s\n%s", what, r, indent(r.examples))
	}
}
