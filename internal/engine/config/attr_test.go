package config

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// attrsOf parses "name = expr" lines into an attribute reader, as a block body would give it.
func attrsOf(t *testing.T, src string) (*attrs, *decoder) {
	t.Helper()
	f, hds := hclsyntax.ParseConfig([]byte(src), "a.hcl", hcl.InitialPos)
	if hds.HasErrors() {
		t.Fatal(hds)
	}
	all, hds := f.Body.JustAttributes()
	if hds.HasErrors() {
		t.Fatal(hds)
	}
	d := newDecoder("a.hcl")
	return &attrs{d: d, owner: "thing", def: d.fileStart(), all: all}, d
}

func TestInteger(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want int64
		msg  string
	}{
		{"5", 5, ""},
		{`"7"`, 7, ""},
		{"null", 42, ""},
		{"0", 42, "a.hcl:1:5: thing: n: must be from 1 to 10, got 0"},
		{"11", 42, "a.hcl:1:5: thing: n: must be from 1 to 10, got 11"},
		{"2.5", 42, "a.hcl:1:5: thing: n: must be a whole number, got 2.5"},
		{"1e20", 42, "a.hcl:1:5: thing: n: must be from 1 to 10, got 1e+20"},
		{`"x"`, 42, `a.hcl:1:5: thing: n: must be a whole number, got string "x"`},
		{"[1]", 42, "a.hcl:1:5: thing: n: must be a whole number, got a list"},
	} {
		a, d := attrsOf(t, "n = "+tc.expr)
		if got := a.integer("n", 1, 10, 42); got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.expr, got, tc.want)
		}
		if got := d.diags.Error(); got != tc.msg {
			t.Errorf("%s: diagnostics\n%s\nwant\n%s", tc.expr, got, tc.msg)
		}
	}
	a, d := attrsOf(t, "n = 0")
	a.integer("n", 1, maxInt64, 1)
	if got := d.diags.Error(); got != "a.hcl:1:5: thing: n: must be at least 1, got 0" {
		t.Errorf("open range: %s", got)
	}
}

func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want time.Duration
		msg  string
	}{
		{`"250ms"`, 250 * time.Millisecond, ""},
		{`"1h2m"`, time.Hour + 2*time.Minute, ""},
		{`"-1s"`, time.Second, `must be positive, got "-1s"`},
		{`"5"`, time.Second, `"5" is not a duration; write e.g. "500ms", "5s" or "2m"`},
	} {
		a, d := attrsOf(t, "w = "+tc.expr)
		if got := a.duration("w", time.Second); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.expr, got, tc.want)
		}
		if !strings.HasSuffix(d.diags.Error(), tc.msg) || (tc.msg == "") != (len(d.diags) == 0) {
			t.Errorf("%s: diagnostics %q, want one ending %q", tc.expr, d.diags.Error(), tc.msg)
		}
	}
}

// TestElementRanges: an error about one element of a list or map points at that element.
func TestElementRanges(t *testing.T) {
	a, _ := attrsOf(t, `l = ["a", "bb", "c"]`+"\n"+`m = { x = "1", "y z" = "2" }`)
	list, ranges, st := a.strList("l", "")
	if st != present || len(list) != 3 || ranges[1].Start.Column != 11 {
		t.Errorf("list %v ranges %v", list, ranges)
	}
	m, mr, st := a.strMap("m", "")
	if st != present || m["y z"] != "2" || mr["x"].Start.Column != 11 || mr["y z"].Start.Column != 24 {
		t.Errorf("map %v ranges %v", m, mr)
	}
	// Not a literal: every element falls back to the whole value.
	a, _ = attrsOf(t, `l = jsondecode("[]")`)
	if _, _, st := a.strList("l", ""); st != invalid {
		t.Error("unknown function accepted")
	}
}

func TestEnum(t *testing.T) {
	a, d := attrsOf(t, `e = "b"`+"\n"+`f = "z"`)
	if got := a.enum("e", "a", "a", "b"); got != "b" {
		t.Errorf("enum = %q", got)
	}
	if got := a.enum("f", "a", "a", "b"); got != "a" || d.diags.Error() != `a.hcl:2:5: thing: f: "z" is not supported; use one of: a, b` {
		t.Errorf("enum = %q, %v", got, d.diags)
	}
	if got := a.enum("missing", "a", "a", "b"); got != "a" {
		t.Errorf("absent enum = %q", got)
	}
}

func TestDescribe(t *testing.T) {
	a, d := attrsOf(t, `s = { a = 1 }`+"\n"+`b = true`+"\n"+`n = ["x", null]`)
	a.str("s")
	a.strList("b", "")
	a.strList("n", "")
	want := "a.hcl:1:5: thing: s: must be a string, got a map\n" +
		"a.hcl:2:5: thing: b: must be a list of strings, got bool true\n" +
		"a.hcl:3:5: thing: n: must be a list of strings, without null elements"
	if got := d.diags.Error(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
