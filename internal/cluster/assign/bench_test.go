package assign

import (
	"fmt"
	"testing"
)

// BenchmarkPlan plans a large pipeline change: ops operators of 128 key
// groups and tasks tasks each on 16 workers, after one worker died and
// the first operator halved its parallelism.
func BenchmarkPlan(b *testing.B) {
	for _, size := range []struct{ ops, tasks int }{{4, 16}, {8, 64}, {8, 128}} {
		b.Run(fmt.Sprintf("ops=%d/tasks=%d", size.ops, size.tasks), func(b *testing.B) {
			var ops []Operator
			for i := range size.ops {
				ops = append(ops, Operator{Name: fmt.Sprintf("op%d", i), MaxParallelism: 128, Parallelism: size.tasks})
			}
			var workers []string
			for i := range 16 {
				workers = append(workers, fmt.Sprintf("w%02d", i))
			}
			prev, _, err := Plan(nil, ops, workers, Stamp{Generation: 1})
			if err != nil {
				b.Fatal(err)
			}
			ops[0].Parallelism /= 2
			for b.Loop() {
				if _, _, err := Plan(&prev, ops, workers[1:], Stamp{Generation: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
