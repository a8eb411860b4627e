package natsio

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/nats-io/nats.go"
)

func TestKeyExtractorValidate(t *testing.T) {
	tests := []struct {
		k    KeyExtractor
		want string // "" = valid
	}{
		{KeyExtractor{SubjectToken: 2}, ""},
		{KeyExtractor{Header: "Account"}, ""},
		{KeyExtractor{JSONField: "a.b"}, ""},
		{KeyExtractor{}, "(0 are set)"},
		{KeyExtractor{SubjectToken: 1, Header: "h"}, "(2 are set)"},
		{KeyExtractor{SubjectToken: -1}, "subject_token -1"},
		{KeyExtractor{JSONField: "a..b"}, "empty path segment"},
		{KeyExtractor{JSONField: "a."}, "empty path segment"},
	}
	for _, tt := range tests {
		err := tt.k.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%v: Validate() = %v", tt.k, err)
		case tt.want != "" && (!errors.Is(err, ErrInvalidExtractor) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%v: Validate() = %v, want ErrInvalidExtractor containing %q", tt.k, err, tt.want)
		}
	}
}

func TestKeyExtractorExtract(t *testing.T) {
	hdr := nats.Header{"Account": {"acct-9", "ignored"}, "Empty": {""}, "Bad": {"\xff"}}
	tests := []struct {
		name    string
		k       KeyExtractor
		subject string
		data    string
		want    string
		wantErr error
	}{
		{"subject token", KeyExtractor{SubjectToken: 2}, "payments.acct-47", "", "acct-47", nil},
		{"first token", KeyExtractor{SubjectToken: 1}, "payments.acct-47", "", "payments", nil},
		{"single-token subject", KeyExtractor{SubjectToken: 1}, "payments", "", "payments", nil},
		{"token out of range", KeyExtractor{SubjectToken: 3}, "payments.acct-47", "", "", ErrKeyMissing},
		{"header", KeyExtractor{Header: "Account"}, "s", "", "acct-9", nil},
		{"header other case", KeyExtractor{Header: "account"}, "s", "", "acct-9", nil},
		{"header empty value", KeyExtractor{Header: "Empty"}, "s", "", "", nil},
		{"header missing", KeyExtractor{Header: "Nope"}, "s", "", "", ErrKeyMissing},
		{"json string", KeyExtractor{JSONField: "id"}, "s", `{"id":"a1"}`, "a1", nil},
		{"json spaces", KeyExtractor{JSONField: "id"}, "s", " { \"x\" : [1, {\"id\":\"no\"}] , \"id\" : \"a1\" } \n", "a1", nil},
		{"json nested", KeyExtractor{JSONField: "acct.id"}, "s", `{"id":"top","acct":{"name":"n","id":"inner"}}`, "inner", nil},
		{"json deep nested", KeyExtractor{JSONField: "a.b.c"}, "s", `{"a":{"b":{"c":7}}}`, "7", nil},
		{"json nested not object", KeyExtractor{JSONField: "a.b"}, "s", `{"a":"str"}`, "", ErrKeyMissing},
		{"json nested missing", KeyExtractor{JSONField: "a.b"}, "s", `{"a":{"c":1}}`, "", ErrKeyMissing},
		{"json escaped quote", KeyExtractor{JSONField: "id"}, "s", `{"id":"a\"b\\c\/d"}`, `a"b\c/d`, nil},
		{"json escaped control", KeyExtractor{JSONField: "id"}, "s", `{"id":"l1\nl2\tx"}`, "l1\nl2\tx", nil},
		{"json unicode escape", KeyExtractor{JSONField: "id"}, "s", `{"id":"caf\u00e9"}`, "café", nil},
		{"json surrogate pair", KeyExtractor{JSONField: "id"}, "s", `{"id":"\ud83d\ude00"}`, "😀", nil},
		{"json lone surrogate", KeyExtractor{JSONField: "id"}, "s", `{"id":"\ud83dx"}`, "", ErrKeyNotUTF8},
		{"json surrogates reversed", KeyExtractor{JSONField: "id"}, "s", `{"id":"\ude00\ud83d"}`, "", ErrKeyNotUTF8},
		{"json escaped replacement char", KeyExtractor{JSONField: "id"}, "s", `{"id":"\ufffd"}`, "\uFFFD", nil},
		{"json raw replacement char", KeyExtractor{JSONField: "id"}, "s", "{\"id\":\"\xef\xbf\xbd\"}", "\uFFFD", nil},
		{"json name not utf8 matches as U+FFFD", KeyExtractor{JSONField: "\uFFFD"}, "s", "{\"\xff\":\"k\"}", "k", nil},
		{"json escaped key", KeyExtractor{JSONField: "id"}, "s", `{"\u0069d":"k"}`, "k", nil},
		{"json raw utf8", KeyExtractor{JSONField: "id"}, "s", `{"id":"日本"}`, "日本", nil},
		{"json invalid utf8", KeyExtractor{JSONField: "id"}, "s", "{\"id\":\"a\xffb\"}", "", ErrKeyNotUTF8},
		{"json encoded surrogate", KeyExtractor{JSONField: "id"}, "s", "{\"id\":\"\xed\xa0\x80\"}", "", ErrKeyNotUTF8},
		{"header not utf8", KeyExtractor{Header: "Bad"}, "s", "", "", ErrKeyNotUTF8},
		{"json integer", KeyExtractor{JSONField: "n"}, "s", `{"n":42}`, "42", nil},
		{"json number literal kept", KeyExtractor{JSONField: "n"}, "s", `{"n":-1.50e+3}`, "-1.50e+3", nil},
		{"json big number", KeyExtractor{JSONField: "n"}, "s", `{"n":123456789012345678901234567890}`, "123456789012345678901234567890", nil},
		{"json bool", KeyExtractor{JSONField: "b"}, "s", `{"b":true}`, "true", nil},
		{"json last duplicate wins", KeyExtractor{JSONField: "id"}, "s", `{"id":"first","id":"second"}`, "second", nil},
		{"json empty string", KeyExtractor{JSONField: "id"}, "s", `{"id":""}`, "", nil},
		{"json null", KeyExtractor{JSONField: "id"}, "s", `{"id":null}`, "", ErrKeyMissing},
		{"json missing", KeyExtractor{JSONField: "id"}, "s", `{"other":"x"}`, "", ErrKeyMissing},
		{"json key case differs", KeyExtractor{JSONField: "id"}, "s", `{"ID":"x"}`, "", ErrKeyMissing},
		{"json object value", KeyExtractor{JSONField: "id"}, "s", `{"id":{"a":1}}`, "", ErrKeyInvalid},
		{"json array value", KeyExtractor{JSONField: "id"}, "s", `{"id":[1]}`, "", ErrKeyInvalid},
		{"json array payload", KeyExtractor{JSONField: "id"}, "s", `[{"id":"x"}]`, "", ErrKeyInvalid},
		{"json string payload", KeyExtractor{JSONField: "id"}, "s", `"id"`, "", ErrKeyInvalid},
		{"json empty payload", KeyExtractor{JSONField: "id"}, "s", ``, "", ErrKeyInvalid},
		{"json not json", KeyExtractor{JSONField: "id"}, "s", `id=7`, "", ErrKeyInvalid},
		{"json truncated", KeyExtractor{JSONField: "id"}, "s", `{"id":"a1"`, "", ErrKeyInvalid},
		{"json trailing garbage", KeyExtractor{JSONField: "id"}, "s", `{"id":"a1"} x`, "", ErrKeyInvalid},
		{"json bad escape", KeyExtractor{JSONField: "id"}, "s", `{"id":"a\x"}`, "", ErrKeyInvalid},
		{"json raw newline in string", KeyExtractor{JSONField: "id"}, "s", "{\"id\":\"a\nb\"}", "", ErrKeyInvalid},
		{"json bad later member", KeyExtractor{JSONField: "id"}, "s", `{"id":"a","x":01}`, "", ErrKeyInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.k.Extract(tt.subject, hdr, []byte(tt.data))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.subject) {
					t.Fatalf("Extract() = %q, %v; want %v naming subject %q", got, err, tt.wantErr, tt.subject)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("Extract() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestExtractMessageNamesSequence(t *testing.T) {
	m := Message{Stream: "PAY", Sequence: 42, Subject: "payments.x", Data: []byte(`{}`)}
	_, err := KeyExtractor{JSONField: "acct"}.ExtractMessage(m)
	if !errors.Is(err, ErrKeyMissing) {
		t.Fatalf("err = %v, want ErrKeyMissing", err)
	}
	for _, want := range []string{"PAY", "sequence 42", "payments.x", `"acct"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}

func TestJSONNestingLimit(t *testing.T) {
	deep := `{"id":"k","x":` + strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1) + "}"
	if _, err := (KeyExtractor{JSONField: "id"}).Extract("s", nil, []byte(deep)); !errors.Is(err, ErrKeyInvalid) {
		t.Fatalf("too deep: err = %v, want ErrKeyInvalid", err)
	}
	ok := `{"id":"k","x":` + strings.Repeat("[", maxJSONDepth-2) + strings.Repeat("]", maxJSONDepth-2) + "}"
	if key, err := (KeyExtractor{JSONField: "id"}).Extract("s", nil, []byte(ok)); err != nil || string(key) != "k" {
		t.Fatalf("within limit: %q, %v", key, err)
	}
}

// FuzzKeyExtractorJSON checks that the scanner never panics and agrees with
// encoding/json on valid objects for top-level string and number fields,
// except that a string encoding/json would decode with U+FFFD for invalid
// UTF-8 or a lone surrogate is refused as not UTF-8.
func FuzzKeyExtractorJSON(f *testing.F) {
	seeds := []struct{ data, field string }{
		{`{"id":"a1"}`, "id"},
		{`{"id":"a\"b\\c\u00e9\ud83d\ude00"}`, "id"},
		{`{"\u0069d":"k","id":"last"}`, "id"},
		{`{"n":-0.5e-7,"s":"x"}`, "n"},
		{`{"a":{"b":[1,{"c":null}],"d":"e"}}`, "a.d"},
		{"{\"id\":\"a\xffb\"}", "id"},
		{`{"id":"\udc00\ud800"}`, "id"},
		{`{"id":"\ud800\u0041"}`, "id"},
		{`{"id":"\ufffd\ud800"}`, "id"},
		{`{"id":"\\ufffd\uFFFD"}`, "id"},
		{"{\"id\":\"\xef\xbf\xbd\\ud83d\\ude00\"}", "id"},
		{"{\"id\":\"\xed\xa0\x80\"}", "id"},
		{`[1,2]`, "id"},
		{`{"id":01}`, "id"},
		{`{"id":"x"`, "id"},
		{``, "id"},
	}
	for _, s := range seeds {
		f.Add([]byte(s.data), s.field)
	}
	f.Fuzz(func(t *testing.T, data []byte, field string) {
		k := KeyExtractor{JSONField: field}
		if k.Validate() != nil {
			return
		}
		got, err := k.Extract("s", nil, data)
		if strings.Contains(field, ".") || !json.Valid(data) {
			return // only: it did not panic
		}
		if trimmed := bytes.TrimLeft(data, " \t\r\n"); trimmed[0] != '{' {
			if !errors.Is(err, ErrKeyInvalid) {
				t.Fatalf("payload that is not an object: got %q, %v", got, err)
			}
			return
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err != nil {
			t.Fatalf("encoding/json rejects a valid object: %v", err)
		}
		raw, ok := obj[field]
		if !ok {
			if !errors.Is(err, ErrKeyMissing) {
				t.Fatalf("missing field %q: got %q, %v", field, got, err)
			}
			return
		}
		checkAgainstEncodingJSON(t, raw, got, err)
	})
}

func checkAgainstEncodingJSON(t *testing.T, raw json.RawMessage, got []byte, err error) {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		checkStringKey(t, raw, str, got, err)
		return
	}
	if c := raw[0]; c != '-' && (c < '0' || c > '9') {
		return // bool, null, object, array: covered by the table tests
	}
	var num json.Number
	if json.Unmarshal(raw, &num) == nil {
		if err != nil || string(got) != num.String() {
			t.Fatalf("number field: got %q, %v; encoding/json says %q", got, err, num)
		}
	}
}

// checkStringKey checks the key taken from the JSON string raw against
// str, encoding/json's decoding of it. encoding/json puts U+FFFD in place
// of invalid UTF-8 and lone surrogates: the extractor must refuse exactly
// those strings (str has more U+FFFD than raw spells) and agree on the rest.
func checkStringKey(t *testing.T, raw []byte, str string, got []byte, err error) {
	replaced := !utf8.Valid(raw) || strings.Count(str, "\uFFFD") > spelledReplacementChars(raw)
	switch {
	case replaced && !errors.Is(err, ErrKeyNotUTF8):
		t.Fatalf("string field %q is not UTF-8 (encoding/json decodes %q): got %q, %v; want ErrKeyNotUTF8", raw, str, got, err)
	case !replaced && (err != nil || string(got) != str):
		t.Fatalf("string field %q: got %q, %v; encoding/json says %q", raw, got, err, str)
	}
}

// spelledReplacementChars counts the U+FFFD the valid UTF-8 JSON string raw
// spells itself, as UTF-8 or as a \ufffd escape.
func spelledReplacementChars(raw []byte) int {
	n := bytes.Count(raw, []byte("\uFFFD"))
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if i+5 < len(raw) && raw[i+1] == 'u' && strings.EqualFold(string(raw[i+2:i+6]), "fffd") {
			n++
		}
		i++ // the escaped character: "\\ufffd" is no escape of U+FFFD
	}
	return n
}

var benchPayload = []byte(`{"ts":"2026-01-02T03:04:05Z","amount":12.5,"tags":["a","b"],"account":{"id":"acct-47","tier":3},"id":"evt-0001"}`)

// BenchmarkKeyExtractorJSON measures taking a nested key from a ~110-byte
// record; BenchmarkKeyEncodingJSON is the encoding/json way, for scale.
func BenchmarkKeyExtractorJSON(b *testing.B) {
	k := KeyExtractor{JSONField: "account.id"}
	b.SetBytes(int64(len(benchPayload)))
	b.ReportAllocs()
	for range b.N {
		if key, err := k.Extract("s", nil, benchPayload); err != nil || len(key) != 7 {
			b.Fatal(key, err)
		}
	}
}

func BenchmarkKeyEncodingJSON(b *testing.B) {
	b.SetBytes(int64(len(benchPayload)))
	b.ReportAllocs()
	for range b.N {
		var v struct {
			Account struct {
				ID string `json:"id"`
			} `json:"account"`
		}
		if err := json.Unmarshal(benchPayload, &v); err != nil || len(v.Account.ID) != 7 {
			b.Fatal(err)
		}
	}
}
