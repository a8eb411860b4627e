package natsio

import "testing"

func TestSinkStatsBySubject(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "OUT", "out.>")
	s := c.NewSink(0)
	defer s.Close()
	ctx := testCtx(t)
	for _, m := range []OutMessage{
		{Subject: "out.a", MsgID: "a-1"}, {Subject: "out.a", MsgID: "a-2"}, {Subject: "out.a", MsgID: "a-1"},
		{Subject: "out.b", MsgID: "b-1"},
	} {
		if err := s.Publish(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	by := s.StatsBySubject()
	want := map[string]SinkStats{
		"out.a": {Published: 3, Acked: 3, Duplicates: 1},
		"out.b": {Published: 1, Acked: 1},
	}
	if len(by) != len(want) {
		t.Fatalf("StatsBySubject() = %+v, want %+v", by, want)
	}
	for subj, w := range want {
		if by[subj] != w {
			t.Errorf("StatsBySubject()[%q] = %+v, want %+v", subj, by[subj], w)
		}
	}
	if total := s.Stats(); total.Published != 4 || total.Acked != 4 || total.Duplicates != 1 {
		t.Errorf("Stats() = %+v, want the sum of the subjects", total)
	}
}
