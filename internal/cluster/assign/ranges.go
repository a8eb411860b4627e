package assign

import "fmt"

// MaxMaxParallelism is the largest number of key groups an operator can
// have: state.MaxMaxParallelism, restated because package state imports
// Pebble and this package imports nothing (ranges_test.go checks they agree).
const MaxMaxParallelism = 1 << 15

// Range is the half-open range [Start, End) of an operator's key groups.
type Range struct{ Start, End int }

// Len returns the number of key groups in r.
func (r Range) Len() int { return max(r.End-r.Start, 0) }

// String prints r as [start,end), as state.KeyGroupRange does.
func (r Range) String() string { return fmt.Sprintf("[%d,%d)", r.Start, r.End) }

// overlap returns the number of key groups r and o share.
func (r Range) overlap(o Range) int { return max(min(r.End, o.End)-max(r.Start, o.Start), 0) }

// rangeForTask returns the key groups task owns out of parallelism tasks
// over maxParallelism key groups: [task*m/p, (task+1)*m/p). It is the
// formula of state.RangeForTask, which routes records to tasks, written
// here once so that the coordinator needs no Pebble; ranges_test.go checks
// that the two agree. The caller checks the arguments (validOperator):
// they are bounded by MaxMaxParallelism, so int64 cannot overflow.
func rangeForTask(task, parallelism, maxParallelism int) Range {
	t, p, m := int64(task), int64(parallelism), int64(maxParallelism)
	return Range{Start: int(t * m / p), End: int((t + 1) * m / p)}
}
