package natsio

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
)

// Two different keys that are not UTF-8 must never become the same key
// (they used to both become "\uFFFD\uFFFD" and share state): every
// extractor refuses them, so the engine dead-letters the records.
func TestKeyNotUTF8IsRefused(t *testing.T) {
	type input struct {
		subject string
		header  nats.Header
		data    string
	}
	tests := []struct {
		name string
		k    KeyExtractor
		a, b input
	}{
		{"json raw bytes", KeyExtractor{JSONField: "id"},
			input{"s", nil, "{\"id\":\"\xff\xfe\"}"}, input{"s", nil, "{\"id\":\"\xfe\xff\"}"}},
		{"json raw bytes beside an escape", KeyExtractor{JSONField: "id"},
			input{"s", nil, "{\"id\":\"\\n\xff\xfe\"}"}, input{"s", nil, "{\"id\":\"\\n\xfe\xff\"}"}},
		{"json nested", KeyExtractor{JSONField: "a.id"},
			input{"s", nil, "{\"a\":{\"id\":\"\xff\xfe\"}}"}, input{"s", nil, "{\"a\":{\"id\":\"\xfe\xff\"}}"}},
		{"json lone surrogate escapes", KeyExtractor{JSONField: "id"},
			input{"s", nil, `{"id":"\ud800"}`}, input{"s", nil, `{"id":"\udc00"}`}},
		{"header", KeyExtractor{Header: "Account"},
			input{"s", nats.Header{"Account": {"\xff\xfe"}}, ""}, input{"s", nats.Header{"Account": {"\xfe\xff"}}, ""}},
		{"header other case", KeyExtractor{Header: "account"},
			input{"s", nats.Header{"Account": {"\xff\xfe"}}, ""}, input{"s", nats.Header{"Account": {"\xfe\xff"}}, ""}},
		{"subject token", KeyExtractor{SubjectToken: 2},
			input{"payments.\xff\xfe.in", nil, ""}, input{"payments.\xfe\xff.in", nil, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keyA, errA := tt.k.Extract(tt.a.subject, tt.a.header, []byte(tt.a.data))
			keyB, errB := tt.k.Extract(tt.b.subject, tt.b.header, []byte(tt.b.data))
			if errA == nil && errB == nil && bytes.Equal(keyA, keyB) {
				t.Fatalf("two different keys that are not UTF-8 both became key %q", keyA)
			}
			for _, err := range []error{errA, errB} {
				if !errors.Is(err, ErrKeyInvalid) || !strings.Contains(err.Error(), "key is not valid UTF-8") {
					t.Errorf("Extract() error = %v; want ErrKeyInvalid saying \"key is not valid UTF-8\" (keys %q, %q)", err, keyA, keyB)
				}
			}
		})
	}
}
