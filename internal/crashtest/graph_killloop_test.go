package crashtest

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

// TestKillLoopGraph is the kill loop on a three-stage dataflow graph:
// operator "pre" (two tasks) reads the source and emits to an internal
// output that operator "mid" (two tasks) reads, re-keyed, through an
// exchange stream; "mid" feeds "sum" (two tasks) the same way. Kills land
// with records in every stage and in both exchange streams; the final state
// of the three operators must equal a crash-free run's, and every output
// of the last stage must be stored exactly once. CRASHTEST_GRAPH_KILLS sets
// the number of kills (the loop: 50).
func TestKillLoopGraph(t *testing.T) {
	t.Parallel()
	records, keys, kills := 30_000, 500, 12
	if testing.Short() {
		records, keys, kills = 5_000, 100, 4
	}
	if n := os.Getenv("CRASHTEST_GRAPH_KILLS"); n != "" {
		var err error
		if kills, err = strconv.Atoi(n); err != nil || kills < 1 {
			t.Fatalf("CRASHTEST_GRAPH_KILLS=%q: want a number of kills", n)
		}
		records = max(records, kills*2_500) // input left for every kill
	}
	spec := sumSpec(t, "a")
	spec.upstream, spec.parallelism = []string{"pre", "mid"}, 2
	runKillLoop(t, killLoopCase{
		name: "graph kill loop", spec: spec, records: records, kills: kills,
		publish: func(t *testing.T, w *world) { w.publish(t, "a", sumRecords("a", 1, records, keys)) },
		outputs: func(t *testing.T, w, ref *world) outputCheck { return checkPayloads(t, w.outputs(t), ref.outputs(t)) },
	})
}

// checkPayloads accounts msgs against the reference run's outputs by
// payload. The ids of the last stage's outputs name the exchange stream's
// sequences, which differ between runs (the producer tasks interleave
// differently); each payload is unique (sum2 emits the key's running count)
// and, for a key, the same in every correct run (one producer task emits a
// key's records, in source order).
func checkPayloads(t *testing.T, msgs, reference []storedMsg) outputCheck {
	t.Helper()
	c := outputCheck{stored: len(msgs)}
	note := func(format string, args ...any) {
		if len(c.examples) < 10 {
			c.examples = append(c.examples, fmt.Sprintf(format, args...))
		}
	}
	want := make(map[string]bool, len(reference))
	for _, m := range reference {
		if want[string(m.data)] {
			t.Fatalf("the reference stored %s twice: payloads cannot identify outputs", m.data)
		}
		want[string(m.data)] = true
	}
	seen := make(map[string]int, len(msgs))
	for _, m := range msgs {
		p := string(m.data)
		seen[p]++
		switch {
		case seen[p] > 1:
			c.duplicates++
			note("duplicate %s (stream sequence %d, id %s)", p, m.seq, m.msgID)
		case !want[p]:
			c.unexpected++
			note("unexpected %s (stream sequence %d, id %s)", p, m.seq, m.msgID)
		}
	}
	for p := range want {
		if seen[p] == 0 {
			c.lost++
			note("lost %s", p)
		}
	}
	return c
}
