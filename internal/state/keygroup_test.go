package state

import (
	"errors"
	"fmt"
	"hash/fnv"
	"testing"
)

// Golden key groups. If this test fails, the hash changed: every stored key
// would land in another key group, which needs a state format version bump.
func TestKeyGroupGolden(t *testing.T) {
	tests := []struct {
		key  string
		m    int
		want int
	}{
		{"", 128, 37},
		{"a", 128, 12},
		{"user-42", 128, 75},
		{"payments.eu.0001", 128, 91},
		{"\x00\xff", 128, 96},
		{"a", 32768, 27788},
		{"user-42", 32768, 23243},
		{"payments.eu.0001", 7, 1},
		{"anything", 1, 0},
	}
	for _, tt := range tests {
		if got := KeyGroup([]byte(tt.key), tt.m); got != tt.want {
			t.Errorf("KeyGroup(%q, %d) = %d, want %d", tt.key, tt.m, got, tt.want)
		}
	}
}

// The inlined hash is FNV-1a 64 as the standard library computes it.
func TestKeyGroupIsFNV1a(t *testing.T) {
	for i := range 1000 {
		key := fmt.Appendf(nil, "key-%d", i*7919)
		h := fnv.New64a()
		h.Write(key)
		if got, want := KeyGroup(key, MaxMaxParallelism), int(h.Sum64()%MaxMaxParallelism); got != want {
			t.Fatalf("KeyGroup(%q) = %d, hash/fnv gives %d", key, got, want)
		}
	}
}

func TestKeyGroupPanicsOnBadMaxParallelism(t *testing.T) {
	for _, m := range []int{0, -1, MaxMaxParallelism + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("KeyGroup(_, %d) did not panic", m)
				}
			}()
			KeyGroup([]byte("k"), m)
		}()
	}
}

// For every p in 1..m the task ranges cover 0..m-1 exactly once, in order,
// and TaskForKeyGroup is their inverse.
func TestRangeForTaskPartitions(t *testing.T) {
	for _, m := range []int{1, 2, 7, 128, 1000} {
		for p := 1; p <= m; p++ {
			checkPartition(t, p, m)
		}
	}
	for _, p := range []int{1, 3, 1000, MaxMaxParallelism - 1, MaxMaxParallelism} {
		checkPartition(t, p, MaxMaxParallelism)
	}
}

func checkPartition(t *testing.T, p, m int) {
	t.Helper()
	next := 0
	for task := range p {
		r := RangeForTask(task, p, m)
		if r.Start != next || r.End < r.Start {
			t.Fatalf("p=%d m=%d: task %d range %s, want start %d", p, m, task, r, next)
		}
		if r.Len() < m/p || r.Len() > m/p+1 {
			t.Fatalf("p=%d m=%d: task %d range %s is unbalanced", p, m, task, r)
		}
		for kg := r.Start; kg < r.End; kg++ {
			if got := TaskForKeyGroup(kg, p, m); got != task {
				t.Fatalf("p=%d m=%d: TaskForKeyGroup(%d) = %d, want %d", p, m, kg, got, task)
			}
		}
		next = r.End
	}
	if next != m {
		t.Fatalf("p=%d m=%d: ranges end at %d", p, m, next)
	}
}

func TestRangeForTaskFormula(t *testing.T) {
	tests := []struct {
		task, p, m int
		want       KeyGroupRange
	}{
		{0, 1, 128, KeyGroupRange{0, 128}},
		{0, 3, 128, KeyGroupRange{0, 42}},
		{1, 3, 128, KeyGroupRange{42, 85}},
		{2, 3, 128, KeyGroupRange{85, 128}},
		{3, 4, 128, KeyGroupRange{96, 128}},
		{127, 128, 128, KeyGroupRange{127, 128}},
	}
	for _, tt := range tests {
		if got := RangeForTask(tt.task, tt.p, tt.m); got != tt.want {
			t.Errorf("RangeForTask(%d, %d, %d) = %s, want %s", tt.task, tt.p, tt.m, got, tt.want)
		}
	}
}

func TestRangeForTaskPanicsOnBadArguments(t *testing.T) {
	for _, a := range [][3]int{{-1, 2, 8}, {2, 2, 8}, {0, 0, 8}, {0, 9, 8}, {0, 1, 0}, {0, 1, MaxMaxParallelism + 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RangeForTask%v did not panic", a)
				}
			}()
			RangeForTask(a[0], a[1], a[2])
		}()
	}
}

func TestValidateParallelism(t *testing.T) {
	tests := []struct {
		p, m int
		ok   bool
	}{
		{1, 1, true}, {4, 128, true}, {128, 128, true}, {MaxMaxParallelism, MaxMaxParallelism, true},
		{0, 128, false}, {129, 128, false}, {1, 0, false}, {1, MaxMaxParallelism + 1, false}, {-1, 8, false},
	}
	for _, tt := range tests {
		err := ValidateParallelism(tt.p, tt.m)
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrInvalidOptions)) {
			t.Errorf("ValidateParallelism(%d, %d) = %v, want ok=%t", tt.p, tt.m, err, tt.ok)
		}
	}
}

func TestKeyGroupRangeContains(t *testing.T) {
	r := KeyGroupRange{10, 20}
	tests := []struct {
		kg   int
		want bool
	}{{9, false}, {10, true}, {15, true}, {19, true}, {20, false}, {-1, false}}
	for _, tt := range tests {
		if got := r.Contains(tt.kg); got != tt.want {
			t.Errorf("%s.Contains(%d) = %t, want %t", r, tt.kg, got, tt.want)
		}
	}
	if (KeyGroupRange{5, 5}).Contains(5) {
		t.Error("an empty range contains a key group")
	}
}

func TestKeyGroupRangeOverlaps(t *testing.T) {
	tests := []struct {
		a, b KeyGroupRange
		want bool
	}{
		{KeyGroupRange{0, 10}, KeyGroupRange{10, 20}, false},
		{KeyGroupRange{0, 11}, KeyGroupRange{10, 20}, true},
		{KeyGroupRange{12, 13}, KeyGroupRange{10, 20}, true},
		{KeyGroupRange{5, 5}, KeyGroupRange{0, 20}, false},
	}
	for _, tt := range tests {
		if got := tt.a.Overlaps(tt.b); got != tt.want {
			t.Errorf("%s.Overlaps(%s) = %t, want %t", tt.a, tt.b, got, tt.want)
		}
		if got := tt.b.Overlaps(tt.a); got != tt.want {
			t.Errorf("%s.Overlaps(%s) = %t, want %t", tt.b, tt.a, got, tt.want)
		}
	}
}
