package natsio

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go"
)

// KeyExtractor takes the record key from a message. Exactly one of its
// fields is set.
type KeyExtractor struct {
	// SubjectToken is the 1-based index of the subject token that is the
	// key: in payments.acct-47, token 2 is "acct-47". 0 = unused.
	SubjectToken int
	// Header is the name of the header whose first value is the key. NATS
	// header names are case-sensitive; a name that differs only in case is
	// accepted when no exact match exists. "" = unused.
	Header string
	// JSONField is a top-level field, or a dotted path "a.b" through nested
	// objects, of a JSON object payload. A string value is unquoted, a
	// number keeps its literal text ("007" stays "007", 1e3 stays "1e3"),
	// true/false keep theirs; null counts as missing; an object or array is
	// invalid. Field names containing '.' cannot be addressed. "" = unused.
	JSONField string
}

// Validate reports an extractor with none or several methods set.
func (k KeyExtractor) Validate() error {
	n := 0
	for _, set := range []bool{k.SubjectToken != 0, k.Header != "", k.JSONField != ""} {
		if set {
			n++
		}
	}
	switch {
	case n != 1:
		return fmt.Errorf("%w: set exactly one of subject_token, header and json_field (%d are set)", ErrInvalidExtractor, n)
	case k.SubjectToken < 0:
		return fmt.Errorf("%w: subject_token %d must be 1 or more", ErrInvalidExtractor, k.SubjectToken)
	case k.JSONField != "" && hasEmptySegment(k.JSONField):
		return fmt.Errorf("%w: json_field %q has an empty path segment", ErrInvalidExtractor, k.JSONField)
	}
	return nil
}

func hasEmptySegment(path string) bool {
	for seg := range strings.SplitSeq(path, ".") {
		if seg == "" {
			return true
		}
	}
	return false
}

// String describes the extractor for logs and errors.
func (k KeyExtractor) String() string {
	switch {
	case k.SubjectToken != 0:
		return fmt.Sprintf("subject token %d", k.SubjectToken)
	case k.Header != "":
		return fmt.Sprintf("header %q", k.Header)
	case k.JSONField != "":
		return fmt.Sprintf("JSON field %q", k.JSONField)
	}
	return "no key"
}

// Extract returns the key of a message. The error wraps ErrKeyMissing or
// ErrKeyInvalid and names the subject; such a record belongs on the
// dead-letter subject. The result may alias data.
func (k KeyExtractor) Extract(subject string, headers nats.Header, data []byte) ([]byte, error) {
	switch {
	case k.SubjectToken > 0:
		return k.fromSubject(subject)
	case k.Header != "":
		return k.fromHeader(subject, headers)
	case k.JSONField != "":
		return k.fromJSON(subject, data)
	}
	return nil, k.Validate()
}

// ExtractMessage is Extract for a source message; errors also name its
// stream and sequence.
func (k KeyExtractor) ExtractMessage(m Message) ([]byte, error) {
	key, err := k.Extract(m.Subject, m.Header, m.Data)
	if err != nil {
		return nil, fmt.Errorf("stream %s sequence %d: %w", m.Stream, m.Sequence, err)
	}
	return key, nil
}

func (k KeyExtractor) fromSubject(subject string) ([]byte, error) {
	rest := subject
	for i := 1; ; i++ {
		tok, after, more := strings.Cut(rest, ".")
		if i == k.SubjectToken {
			return []byte(tok), nil
		}
		if !more {
			return nil, fmt.Errorf("%w: subject %q has %d tokens, key is token %d", ErrKeyMissing, subject, i, k.SubjectToken)
		}
		rest = after
	}
}

func (k KeyExtractor) fromHeader(subject string, h nats.Header) ([]byte, error) {
	if v, ok := h[k.Header]; ok && len(v) > 0 {
		return []byte(v[0]), nil
	}
	for name, v := range h {
		if strings.EqualFold(name, k.Header) && len(v) > 0 {
			return []byte(v[0]), nil
		}
	}
	return nil, fmt.Errorf("%w: subject %q: no header %q", ErrKeyMissing, subject, k.Header)
}

func (k KeyExtractor) fromJSON(subject string, data []byte) ([]byte, error) {
	key, err := jsonKey(data, k.JSONField)
	if err != nil {
		return nil, fmt.Errorf("subject %q: %w", subject, err)
	}
	return key, nil
}

// jsonKey returns the scalar at path in the JSON object data as key bytes.
// Errors wrap ErrKeyMissing or ErrKeyInvalid.
func jsonKey(data []byte, path string) ([]byte, error) {
	raw, kind, escaped, err := jsonField(data, path)
	switch {
	case errors.Is(err, errFieldMissing):
		return nil, fmt.Errorf("%w: JSON field %q not found", ErrKeyMissing, path)
	case err != nil && len(data) == 0:
		return nil, fmt.Errorf("%w: empty payload, want a JSON object with field %q", ErrKeyInvalid, path)
	case err != nil:
		return nil, fmt.Errorf("%w: payload: %w", ErrKeyInvalid, err)
	}
	switch kind {
	case jsonString:
		if escaped {
			return unquote(raw), nil
		}
		return raw, nil
	case jsonNumber, jsonBool:
		return raw, nil
	case jsonNull:
		return nil, fmt.Errorf("%w: JSON field %q is null", ErrKeyMissing, path)
	}
	return nil, fmt.Errorf("%w: JSON field %q is an object or array, not a string or number", ErrKeyInvalid, path)
}
