package member

import (
	"slices"
	"testing"
	"time"
)

func TestTracker(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	tr := NewTracker(5 * time.Second)
	steps := []struct {
		do             func()
		now            float64
		alive, suspect []string
	}{
		{func() {}, 0, nil, nil},
		{func() { tr.Heard("w1", at(0), false) }, 0, nil, nil}, // a heartbeat without a lease makes nobody alive
		{func() { tr.Joined("w1", at(1)); tr.Joined("w2", at(1)) }, 1, []string{"w1", "w2"}, nil},
		{func() { tr.Heard("w1", at(5), false) }, 5.9, []string{"w1", "w2"}, nil},
		{func() {}, 6, []string{"w1"}, []string{"w2"}}, // w2 silent for the timeout
		{func() { tr.Heard("w2", at(6.5), false) }, 7, []string{"w1", "w2"}, nil},
		{func() { tr.Heard("w1", at(2), false) }, 10.5, []string{"w2"}, []string{"w1"}}, // a late old heartbeat does not rewind
		{func() { tr.Left("w1") }, 10.5, []string{"w2"}, nil},
		{func() { tr.Joined("w2", at(12)) }, 12, nil, []string{"w2"}}, // a renewal is not a heartbeat
		{func() { tr.Heard("w2", at(12), false) }, 16, []string{"w2"}, nil},
	}
	for i, s := range steps {
		s.do()
		v := tr.View(at(s.now))
		if !slices.Equal(v.Alive, s.alive) || !slices.Equal(v.Suspected, s.suspect) {
			t.Fatalf("step %d at %gs: alive %v suspected %v, want %v and %v", i, s.now, v.Alive, v.Suspected, s.alive, s.suspect)
		}
	}
}

// A member that says it is leaving stays alive (it still acks a handover
// checkpoint) but is not staying; a later heartbeat without the flag does
// not take the leave back, and a silent leaving member is only suspected.
func TestTrackerLeaving(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tr := NewTracker(5 * time.Second)
	tr.Joined("w1", t0)
	tr.Joined("w2", t0)
	tr.Heard("w1", t0.Add(time.Second), true)
	tr.Heard("w1", t0.Add(2*time.Second), false)
	v := tr.View(t0.Add(3 * time.Second))
	if !slices.Equal(v.Alive, []string{"w1", "w2"}) || !slices.Equal(v.Leaving, []string{"w1"}) || !slices.Equal(v.Staying(), []string{"w2"}) {
		t.Fatalf("view %+v, staying %v: want both alive, w1 leaving, w2 staying", v, v.Staying())
	}
	v = tr.View(t0.Add(8 * time.Second))
	if len(v.Leaving) != 0 || !slices.Equal(v.Suspected, []string{"w1", "w2"}) {
		t.Errorf("view after the timeout %+v: want both suspected, none leaving", v)
	}
}
