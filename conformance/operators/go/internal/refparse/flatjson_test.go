package refparse

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestParseObject(t *testing.T) {
	tests := []struct {
		in   string
		want []Field
	}{
		{`{}`, nil},
		{` { } `, nil},
		{`{"a":"x"}`, []Field{{Name: "a", IsString: true, Str: "x"}}},
		{`{"a":""}`, []Field{{Name: "a", IsString: true}}},
		{`{ "a" : 5 , "b" : "y" }`, []Field{{Name: "a", Int: 5}, {Name: "b", IsString: true, Str: "y"}}},
		{`{"n":-12,"s":"Zürich 東京 🙂"}`, []Field{{Name: "n", Int: -12}, {Name: "s", IsString: true, Str: "Zürich 東京 🙂"}}},
		{`{"":"empty name"}`, []Field{{Name: "", IsString: true, Str: "empty name"}}},
	}
	for _, tt := range tests {
		got, err := ParseObject([]byte(tt.in))
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseObject(%s) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseObjectRefuses(t *testing.T) {
	for _, in := range []string{
		``, ` `, `[]`, `"a"`, `5`, `{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,}`,
		`{"a":1}x`, `{"a":1}{}`, `x{"a":1}`,
		`{"a":1 "b":2}`, `{"a":"x\"y"}`, `{"a":"x\ny"}`, `{"a\n":1}`, "{\"a\":\"x\ty\"}",
		"{\t\"a\":1}", "{\"a\":1}\n", `{"a":true}`, `{"a":null}`, `{"a":1.5}`, `{"a":01}`,
		`{"a":+1}`, `{"a":{}}`, `{"a":[1]}`, `{"a":1,"a":2}`, `{'a':1}`, `{a:1}`,
		"{\"a\":\"\xff\"}", `{"a":1000000000000000000}`,
	} {
		if got, err := ParseObject([]byte(in)); !errors.Is(err, ErrJSON) {
			t.Errorf("ParseObject(%q) = %+v, %v; want ErrJSON", in, got, err)
		}
	}
}

// Every object ParseObject accepts is valid JSON that encoding/json reads
// to the same members: the subset is a subset.
func FuzzParseObject(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"account":"a","event":"e","cents":5}`, `{ "a" : -1 }`, `{"a":"x\y"}`,
		`{"a":1,"a":2}`, `{"a":"ü"}`, `{"a":01}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fields, err := ParseObject(b)
		if err != nil {
			return
		}
		var m map[string]any
		dec := json.NewDecoder(bytesReader(b))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("ParseObject accepted %q, encoding/json refuses it: %v", b, err)
		}
		if len(m) != len(fields) {
			t.Fatalf("%q: %d fields, encoding/json sees %d", b, len(fields), len(m))
		}
		for _, f := range fields {
			checkField(t, b, f, m[f.Name])
		}
	})
}

func checkField(t *testing.T, b []byte, f Field, v any) {
	t.Helper()
	switch v := v.(type) {
	case string:
		if !f.IsString || v != f.Str {
			t.Fatalf("%q: field %q = %+v, encoding/json says %q", b, f.Name, f, v)
		}
	case json.Number:
		n, err := v.Int64()
		if f.IsString || err != nil || n != f.Int {
			t.Fatalf("%q: field %q = %+v, encoding/json says %s", b, f.Name, f, v)
		}
	default:
		t.Fatalf("%q: field %q = %+v, encoding/json says %T", b, f.Name, f, v)
	}
}
