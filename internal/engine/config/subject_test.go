package config

import "testing"

func TestValidSubject(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"payments", true}, {"payments.in", true}, {"payments.*", true}, {"payments.>", true},
		{"*.in.>", true}, {">", true}, {"a*.b>", true}, // literal tokens, as in nats-server
		{"", false}, {".a", false}, {"a.", false}, {"a..b", false}, {"a.>.b", false},
		{"a b", false}, {"a\tb", false}, {"a\x00b", false}, {"a.\n", false},
	} {
		if got := validSubject(tc.s); got != tc.want {
			t.Errorf("validSubject(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

func TestHasWildcard(t *testing.T) {
	for s, want := range map[string]bool{"a.b": false, "a.*": true, "a.>": true, "a*.b": false, "*": true} {
		if got := hasWildcard(s); got != want {
			t.Errorf("hasWildcard(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestSubjectsCollide(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"a.b", "a.b", true}, {"a.b", "a.c", false}, {"a.*", "a.b", true}, {"a.>", "a.b.c", true},
		{"a.>", "a", false}, {"a.*", "a.b.c", false}, {"*.b", "a.*", true}, {">", "x", true},
		{"a.b.>", "a.*.c", true}, {"a.b.>", "a.c.>", false}, {"a", "a.b", false},
		// ">" matches one or more tokens: it overlaps everything, but "a" has no token after "a".
		{">", "*", true}, {">", "a.*.c", true}, {">", ">", true}, {"*.>", "a", false}, {"a.*", "a.>", true},
		{"*", "a", true}, {"a.*.c", "a.b.c.d", false},
	} {
		if got := subjectsCollide(tc.a, tc.b); got != tc.want {
			t.Errorf("subjectsCollide(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := subjectsCollide(tc.b, tc.a); got != tc.want {
			t.Errorf("subjectsCollide(%q, %q) = %v, want %v (not symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestSubjectIsSubset(t *testing.T) {
	for _, tc := range []struct {
		sub, pattern string
		want         bool
	}{
		{"a.b", "a.b", true}, {"a.b", "a.*", true}, {"a.*", "a.b", false}, {"a.b.c", "a.>", true},
		{"a.>", "a.>", true}, {"a.>", "a.*", false}, {"a.*", "a.>", true}, {"a", "a.>", false},
		{"$JS.EVENT.ADVISORY.>", "$JS.EVENT.>", true}, {"$JS.>", "$JS.EVENT.>", false},
	} {
		if got := subjectIsSubset(tc.sub, tc.pattern); got != tc.want {
			t.Errorf("subjectIsSubset(%q, %q) = %v, want %v", tc.sub, tc.pattern, got, tc.want)
		}
	}
}

func TestCapturesAPI(t *testing.T) {
	for s, want := range map[string]bool{
		"payments.>": false, "$JS.API.>": true, "*.API.>": true, ">": true, "$SYS.>": true,
		"$JS.EVENT.>": false, "$SYS.ACCOUNT.*.CONNECT": false, "$JSC.x": true, "$NRG.x": true,
	} {
		if got := capturesAPI(s); got != want {
			t.Errorf("capturesAPI(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(string) bool
		ok   []string
		bad  []string
	}{
		{"stream", validStreamName, []string{"PAYMENTS", "orders-v2", "a_b"}, []string{"", "a.b", "a b", "a*", "a>", "a/b", `a\b`, "a\x01"}},
		{"object", validObjectName, []string{"risk", "risk-totals", "Risk_2"}, []string{"", "a b", "a.b", "ä", "a/b"}},
		{"pipeline", validPipelineName, []string{"payment-risk", "p_1"}, []string{"", "Payment", "a b", "a.b"}},
		{"json field", validJSONField, []string{"account", "customer.id", "a.b.c"}, []string{"", ".a", "a.", "a..b"}},
		{"header", validHeaderName, []string{"Account", "X-Account-Id"}, []string{"", "A B", "A:B", "A\n"}},
	} {
		for _, s := range tc.ok {
			if !tc.fn(s) {
				t.Errorf("%s name %q refused", tc.name, s)
			}
		}
		for _, s := range tc.bad {
			if tc.fn(s) {
				t.Errorf("%s name %q accepted", tc.name, s)
			}
		}
	}
}
