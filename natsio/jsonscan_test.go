package natsio

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

func TestScannerValidity(t *testing.T) {
	valid := []string{
		`{}`, ` { } `, `{"a":1}`, `{"a":[]}`, `{"a":[1,"2",{"b":null},true,false]}`,
		`{"a":-0}`, `{"a":0.5}`, `{"a":1e5}`, `{"a":1E+5}`, `{"a":-1.5e-5}`,
		`{"a":"\"\\\/\b\f\n\r\t\u00FF"}`, `{"":""}`, "{\"a\":\"\xff\"}",
	}
	invalid := []string{
		`{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,}`, `{"a":1 "b":2}`, `{a:1}`, `{'a':1}`,
		`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":+1}`, `{"a":-}`, `{"a":0x1}`,
		`{"a":tru}`, `{"a":nul}`, `{"a":True}`, `{"a":[1,]}`, `{"a":[1 2]}`, `{"a":[}`,
		`{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12G4"}`, `{"a":"` + "\x01" + `"}`, `{"a":"open}`,
		`{"a":1}}`, `{"a":1} {}`,
	}
	for _, s := range valid {
		if _, _, _, err := objectMember([]byte(s), "zz"); !errors.Is(err, errFieldMissing) {
			t.Errorf("%q: %v, want it accepted", s, err)
		}
	}
	for _, s := range invalid {
		if _, _, _, err := objectMember([]byte(s), "zz"); !errors.Is(err, errJSONSyntax) {
			t.Errorf("%q: %v, want a syntax error", s, err)
		}
	}
}

// FuzzJSONScannerValidity checks that the scanner accepts exactly the
// objects encoding/json accepts, so that a malformed payload can never
// yield a key.
func FuzzJSONScannerValidity(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":[1,{"b":"c\u0041"}]}`, `{"a":1.5e+3,"b":null}`, `{"a":"\ud800"}`, `{"a":01}`, `{"a"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
			return
		}
		_, _, _, err := objectMember(data, "a")
		if errors.Is(err, errJSONTooDeep) {
			return
		}
		accepted := err == nil || errors.Is(err, errFieldMissing)
		if accepted != json.Valid(data) {
			t.Fatalf("scanner accepted=%v (%v), json.Valid=%v for %q", accepted, err, json.Valid(data), data)
		}
	})
}
