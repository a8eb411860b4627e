package natsio

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/nats-io/nats.go"
)

// KeyExtractor takes the record key from a message. Exactly one of its
// fields is set.
//
// A key's identity is its bytes, and whichever field it comes from it must
// be valid UTF-8: a key that is not (raw bytes that are not UTF-8, or in
// JSON a \u escape of a lone surrogate) is refused with ErrKeyNotUTF8, and
// the engine dead-letters its record. Nothing is replaced by U+FFFD, which
// would make different keys one. Refused rather than kept, and the same for
// all three: JSON text is UTF-8 by definition and a lone surrogate has no
// UTF-8 form, so a JSON key cannot be kept as sent; a header or subject
// token could be, but then whether a record has a key would depend on where
// it is taken from, and keys are also read as text (logs, state dumps, the
// SDKs' string accessors, which would merge them again). RATIONALE.md has
// the details.
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
	// invalid. Field names containing '.' cannot be addressed. Field names
	// are matched as encoding/json decodes them (invalid UTF-8 in a name
	// reads as U+FFFD); only the key value must be UTF-8. "" = unused.
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
			if !utf8.ValidString(tok) {
				return nil, fmt.Errorf("%w: subject %q, token %d is %s", ErrKeyNotUTF8, subject, i, quoteKey(tok))
			}
			return []byte(tok), nil
		}
		if !more {
			return nil, fmt.Errorf("%w: subject %q has %d tokens, key is token %d", ErrKeyMissing, subject, i, k.SubjectToken)
		}
		rest = after
	}
}

func (k KeyExtractor) fromHeader(subject string, h nats.Header) ([]byte, error) {
	v, ok := h[k.Header]
	name := k.Header
	if !ok || len(v) == 0 {
		name, v = headerFold(h, k.Header)
	}
	switch {
	case len(v) == 0:
		return nil, fmt.Errorf("%w: subject %q: no header %q", ErrKeyMissing, subject, k.Header)
	case !utf8.ValidString(v[0]):
		return nil, fmt.Errorf("%w: subject %q, header %q is %s", ErrKeyNotUTF8, subject, name, quoteKey(v[0]))
	}
	return []byte(v[0]), nil
}

// headerFold returns a header with a value whose name equals name but for
// case, or no values.
func headerFold(h nats.Header, name string) (string, []string) {
	for n, v := range h {
		if strings.EqualFold(n, name) && len(v) > 0 {
			return n, v
		}
	}
	return "", nil
}

// quoteKey quotes a refused key for an error message, cut to 64 bytes.
func quoteKey[T string | []byte](key T) string {
	const show = 64
	if len(key) > show {
		return fmt.Sprintf("%q...", key[:show])
	}
	return fmt.Sprintf("%q", key)
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
		if !escaped {
			return raw, nil // scanString saw no escape and only UTF-8
		}
		if key, ok := unquote(raw); ok {
			return key, nil
		}
		return nil, fmt.Errorf("%w: JSON field %q is %s", ErrKeyNotUTF8, path, quoteKey(raw))
	case jsonNumber, jsonBool:
		return raw, nil
	case jsonNull:
		return nil, fmt.Errorf("%w: JSON field %q is null", ErrKeyMissing, path)
	}
	return nil, fmt.Errorf("%w: JSON field %q is an object or array, not a string or number", ErrKeyInvalid, path)
}
