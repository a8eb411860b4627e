package exchange

import (
	"errors"
	"testing"
)

func TestMsgID(t *testing.T) {
	for _, tc := range []struct {
		p    Position
		want string
	}{
		{Position{Producer: "enrich", Input: "payments", Sequence: 101, Emit: 0}, "x1:enrich:payments:101:0"},
		{Position{Producer: "score", Input: "enrich.out", Sequence: 18446744073709551615, Emit: 63}, "x1:score:enrich.out:18446744073709551615:63"},
		{Position{Producer: "score", Input: "enrich.a:b%c d\n\xff", Sequence: 1, Emit: 2}, "x1:score:enrich.a%3Ab%25c%20d%0A%FF:1:2"},
	} {
		got := MsgID(tc.p)
		if got != tc.want {
			t.Errorf("MsgID(%+v) = %q, want %q", tc.p, got, tc.want)
		}
		back, err := ParseMsgID(got)
		if err != nil || back != tc.p {
			t.Errorf("ParseMsgID(%q) = %+v, %v; want %+v", got, back, err, tc.p)
		}
	}
}

// A replay publishes the same id for the same position, whichever task runs it; any part that
// differs gives another id.
func TestMsgIDDependsOnEveryPart(t *testing.T) {
	base := Position{Producer: "enrich", Input: "payments", Sequence: 7, Emit: 1}
	ids := map[string]bool{MsgID(base): true}
	for _, p := range []Position{
		{Producer: "enrich2", Input: "payments", Sequence: 7, Emit: 1},
		{Producer: "enrich", Input: "payments2", Sequence: 7, Emit: 1},
		{Producer: "enrich", Input: "payments", Sequence: 8, Emit: 1},
		{Producer: "enrich", Input: "payments", Sequence: 7, Emit: 0},
		{Producer: "enrich", Input: "payments:7", Sequence: 1, Emit: 1},
	} {
		id := MsgID(p)
		if ids[id] {
			t.Errorf("%+v: id %q is not unique", p, id)
		}
		ids[id] = true
	}
	if MsgID(base) != MsgID(base) {
		t.Error("MsgID is not deterministic")
	}
}

func TestParseMsgIDRefuses(t *testing.T) {
	for _, s := range []string{
		"", "x1:", "x2:a:b:1:0", "x1:a:b:1", "x1:a:b:1:0:9", "x1::b:1:0", "x1:a::1:0",
		"x1:a:b:0:0", "x1:a:b:01:0", "x1:a:b:1:00", "x1:a:b:-1:0", "x1:a:b:1:-1", "x1:a:b:1:2147483648",
		"x1:a:b:18446744073709551616:0", "x1:a%3:b:1:0", "x1:a%zz:b:1:0", "x1:a%41:b:1:0", "x1:a b:c:1:0",
	} {
		if p, err := ParseMsgID(s); !errors.Is(err, ErrInvalidMsgID) {
			t.Errorf("ParseMsgID(%q) = %+v, %v; want ErrInvalidMsgID", s, p, err)
		}
	}
}
