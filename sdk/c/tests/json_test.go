package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wasmstream/wasmstream/host"
)

// Member types of wasmstream_json.h.
const (
	jsonString  = 1
	jsonInt     = 2
	jsonNumber  = 3
	jsonLiteral = 4
)

var smallInt = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,17})$`)

// refFlatJSON is the reference for the C reader, built on encoding/json: it
// returns the probe's dump of doc's members ("name|type|text|num" lines),
// or ok=false when the C reader must refuse doc.
func refFlatJSON(doc []byte) (dump string, ok bool) {
	// A backslash can only sit in a string of valid JSON: no escapes.
	if !json.Valid(doc) || !utf8.Valid(doc) || bytes.IndexByte(doc, '\\') >= 0 {
		return "", false
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if tok, _ := dec.Token(); tok != json.Delim('{') {
		return "", false
	}
	var b strings.Builder
	for dec.More() {
		name, _ := dec.Token()
		tok, _ := dec.Token()
		typ, text, num := 0, "", int64(0)
		switch v := tok.(type) {
		case string:
			typ, text = jsonString, v
		case json.Number:
			typ, text = jsonNumber, string(v)
			if smallInt.MatchString(text) {
				typ = jsonInt
				num, _ = strconv.ParseInt(text, 10, 64)
			}
		case bool, nil:
			typ, text = jsonLiteral, fmt.Sprint(v)
			if v == nil {
				text = "null"
			}
		default: // a nested object or array
			return "", false
		}
		fmt.Fprintf(&b, "%s|%d|%s|%d\n", name, typ, text, num)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return "", false
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", false
	}
	return b.String(), true
}

// flatJSON runs the C reader on doc through the probe operator.
func flatJSON(tb testing.TB, g *guest, doc []byte) (dump string, ok bool) {
	tb.Helper()
	outs, err := g.process(host.Record{Key: []byte("k"), Value: append([]byte("json "), doc...)})
	if err != nil {
		tb.Fatalf("json %q: %v", doc, err)
	}
	v := string(outs[0].Value)
	if strings.HasPrefix(v, "error at ") {
		return v, false
	}
	return v, true
}

func TestFlatJSON(t *testing.T) {
	g := startProbe(t, "")
	cases := []struct {
		doc, want string // want: the dump, or "error at N"
	}{
		{`{"account":"acct-47","event":"evt-47","cents":1200}`,
			"account|1|acct-47|0\nevent|1|evt-47|0\ncents|2|1200|1200\n"},
		{" { \"a\" : -0 , \"b\":\t\"\" }\r\n", "a|2|-0|0\nb|1||0\n"},
		{`{}`, ""},
		{`{"a":1,"a":2}`, "a|2|1|1\na|2|2|2\n"},
		{`{"n":-999999999999999999,"big":1000000000000000000,"f":1.5,"e":1e3}`,
			"n|2|-999999999999999999|-999999999999999999\nbig|3|1000000000000000000|0\nf|3|1.5|0\ne|3|1e3|0\n"},
		{`{"t":true,"f":false,"z":null}`, "t|4|true|0\nf|4|false|0\nz|4|null|0\n"},
		{`{"ü":"日本 <&>"}`, "ü|1|日本 <&>|0\n"},
		{`{"a":"x\"y"}`, "error at 7"},
		{`{"a":01}`, "error at 7"},
		{`{"a":1,}`, "error at 7"},
		{`{"a":{"b":1}}`, "error at 5"},
		{`{"a":[1]}`, "error at 5"},
		{`{"a":1} x`, "error at 8"},
		{`{"a":"\u0001"}`, "error at 6"},
		{"{\"a\":\"\xff\"}", "error at 7"},
		{`[1]`, "error at 0"},
		{``, "error at 0"},
		{`{"a":tru}`, "error at 5"},
		{`{"a" 1}`, "error at 5"},
		{`{"a":-}`, "error at 6"},
		{`{"a":1.}`, "error at 7"},
	}
	for _, c := range cases {
		got, ok := flatJSON(t, g, []byte(c.doc))
		if got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.doc, got, c.want)
		}
		if ref, refOK := refFlatJSON([]byte(c.doc)); ok != refOK || (ok && ref != got) {
			t.Errorf("%q: reference says %q, %v", c.doc, ref, refOK)
		}
	}
}

// The C reader accepts exactly what the reference accepts, with the same
// members.
func FuzzFlatJSON(f *testing.F) {
	for _, s := range []string{`{"account":"a","event":"e","cents":12}`, `{"a":1.5e3,"b":null}`, `{}`, `{"a":"ü"}`,
		`{"a":-0}`, `{"a":{}}`, ` {"a" : "b" } `, `{"a":1,"a":2}`, "{\"\xc3\":1}"} {
		f.Add([]byte(s))
	}
	g := startProbeTB(f, "")
	f.Fuzz(func(t *testing.T, doc []byte) {
		got, ok := flatJSON(t, g, doc)
		ref, refOK := refFlatJSON(doc)
		if ok != refOK || (ok && got != ref) {
			t.Fatalf("%q: C reader %q (ok %v), reference %q (ok %v)", doc, got, ok, ref, refOK)
		}
	})
}

func startProbeTB(tb testing.TB, config string) *guest {
	tb.Helper()
	return newGuest(tb, probeWasm(tb), host.InstanceConfig{Config: []byte(config)}).mustStart()
}

// jsonString runs the C JSON string writer on s.
func cJSONString(tb testing.TB, g *guest, s []byte) string {
	tb.Helper()
	outs, err := g.process(host.Record{Key: []byte("k"), Value: append([]byte("jsonstr "), s...)})
	if err != nil {
		tb.Fatalf("jsonstr %q: %v", s, err)
	}
	return string(outs[0].Value)
}

// The C writer escapes strings exactly like Go's json.Marshal, invalid
// UTF-8 included, so that C and Go operators emit identical bytes.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{"", "acct-47", `a"b\c`, "<a&b>", "\b\f\n\r\t\x00\x1f\x7f", "日本\u2028\u2029",
		"\xff\xfe", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "\xc0\xaf", "😀"} {
		f.Add([]byte(s))
	}
	g := startProbeTB(f, "")
	f.Fuzz(func(t *testing.T, s []byte) {
		want, err := json.Marshal(string(s))
		if err != nil {
			t.Fatal(err)
		}
		if got := cJSONString(t, g, s); got != string(want) {
			t.Fatalf("%q: C wrote %s, Go %s", s, got, want)
		}
	})
}

func TestParseI64(t *testing.T) {
	g := startProbe(t, "")
	cases := map[string]string{
		"0": "0", "-0": "0", "7": "7", "-42": "-42", "999999999999999999": "999999999999999999",
		"-999999999999999999": "-999999999999999999",
		"1000000000000000000": "", "+5": "", "007": "", "": "", "-": "", " 5": "", "5 ": "", "1.0": "", "0x10": "",
	}
	for in, want := range cases {
		outs, err := g.process(rec("k", "int "+in))
		switch {
		case want == "" && !errors.Is(err, host.ErrRecordFailed):
			t.Errorf("%q: got %v, want a record error", in, err)
		case want != "" && (err != nil || string(outs[0].Value) != want):
			t.Errorf("%q: got %v %q, want %s", in, err, values(outs), want)
		}
	}
}
