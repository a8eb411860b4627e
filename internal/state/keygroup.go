package state

import "fmt"

// DefaultMaxParallelism is the number of key groups when a pipeline does not
// choose one. It bounds how far an operator can ever be scaled out, and it can
// only change by restoring into a new layout, so it is generous.
const DefaultMaxParallelism = 128

// MaxMaxParallelism is the largest number of key groups. It is Flink's bound:
// past it the fixed cost per key group dominates. Key groups are stored as
// u16 (FORMAT.md), so the bound also leaves the layout room.
const MaxMaxParallelism = 1 << 15

// FNV-1a 64-bit parameters (http://www.isthe.com/chongo/tech/comp/fnv/).
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// KeyGroup returns the key group of a record key: the 64-bit FNV-1a hash of
// the key bytes modulo maxParallelism. The function is part of the state
// format (FORMAT.md): changing it would send existing keys to other key
// groups, so it can only change with a format version bump.
//
// maxParallelism must be in 1..MaxMaxParallelism; it is a programming error
// otherwise and KeyGroup panics, like a division by zero.
func KeyGroup(key []byte, maxParallelism int) int {
	if maxParallelism < 1 || maxParallelism > MaxMaxParallelism {
		panic(fmt.Sprintf("state: KeyGroup: maxParallelism %d outside 1..%d", maxParallelism, MaxMaxParallelism))
	}
	// Inlined rather than hash/fnv: the interface value would escape to the
	// heap on every record.
	h := uint64(fnvOffset64)
	for _, c := range key {
		h ^= uint64(c)
		h *= fnvPrime64
	}
	return int(h % uint64(maxParallelism))
}

// KeyGroupRange is the half-open range [Start, End) of key groups a task owns.
type KeyGroupRange struct{ Start, End int }

// Contains reports whether key group kg is in the range.
func (r KeyGroupRange) Contains(kg int) bool { return kg >= r.Start && kg < r.End }

// Len returns the number of key groups in the range.
func (r KeyGroupRange) Len() int { return max(r.End-r.Start, 0) }

// Overlaps reports whether r and o share a key group.
func (r KeyGroupRange) Overlaps(o KeyGroupRange) bool {
	return r.Start < o.End && o.Start < r.End && r.Len() > 0 && o.Len() > 0
}

// String prints the range as [start,end).
func (r KeyGroupRange) String() string { return fmt.Sprintf("[%d,%d)", r.Start, r.End) }

// validate checks that r is a non-empty range inside 0..maxParallelism.
func (r KeyGroupRange) validate(maxParallelism int) error {
	if r.Start < 0 || r.Start >= r.End || r.End > maxParallelism {
		return fmt.Errorf("%w: key-group range %s must be non-empty and inside [0,%d); compute it with RangeForTask",
			ErrInvalidOptions, r, maxParallelism)
	}
	return nil
}

// ValidateParallelism checks a parallelism against a maxParallelism: both
// positive, parallelism ≤ maxParallelism ≤ MaxMaxParallelism.
func ValidateParallelism(parallelism, maxParallelism int) error {
	if maxParallelism < 1 || maxParallelism > MaxMaxParallelism {
		return fmt.Errorf("%w: maxParallelism %d must be in 1..%d", ErrInvalidOptions, maxParallelism, MaxMaxParallelism)
	}
	if parallelism < 1 || parallelism > maxParallelism {
		return fmt.Errorf("%w: parallelism %d must be in 1..maxParallelism (%d); raising maxParallelism needs a new state layout",
			ErrInvalidOptions, parallelism, maxParallelism)
	}
	return nil
}

// RangeForTask returns the key groups task owns when an operator runs with
// parallelism tasks over maxParallelism key groups: [task*m/p, (task+1)*m/p).
// The ranges of tasks 0..p-1 partition 0..m-1. Arithmetic is in int64 so it
// cannot overflow on 32-bit platforms.
//
// Invalid arguments are a programming error (check them once with
// ValidateParallelism) and make RangeForTask panic.
func RangeForTask(task, parallelism, maxParallelism int) KeyGroupRange {
	if err := ValidateParallelism(parallelism, maxParallelism); err != nil {
		panic(err)
	}
	if task < 0 || task >= parallelism {
		panic(fmt.Sprintf("state: RangeForTask: task %d outside 0..%d", task, parallelism-1))
	}
	t, p, m := int64(task), int64(parallelism), int64(maxParallelism)
	return KeyGroupRange{Start: int(t * m / p), End: int((t + 1) * m / p)}
}

// TaskForKeyGroup returns the task whose RangeForTask contains kg: the
// routing function the engine uses to send a record to its task.
// kg*p/m would not do: it is the inverse of Flink's rounding, not of
// RangeForTask's.
func TaskForKeyGroup(kg, parallelism, maxParallelism int) int {
	if err := ValidateParallelism(parallelism, maxParallelism); err != nil {
		panic(err)
	}
	if kg < 0 || kg >= maxParallelism {
		panic(fmt.Sprintf("state: TaskForKeyGroup: key group %d outside 0..%d", kg, maxParallelism-1))
	}
	// kg is in task i iff i*m/p < kg+1 ≤ (i+1)*m/p, so i = ceil((kg+1)*p/m) - 1.
	k, p, m := int64(kg), int64(parallelism), int64(maxParallelism)
	return int(((k+1)*p+m-1)/m - 1)
}
