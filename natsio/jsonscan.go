package natsio

import (
	"bytes"
	"errors"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// A small JSON scanner that finds one field of an object without decoding
// the rest into Go values: extracting a key is on the hot path of every
// record, and json.Unmarshal into a map costs an allocation per member.
// It validates what it skips, so malformed input is an error, never a
// wrong key. Semantics follow encoding/json decoding into a map: the last
// of duplicate members wins, and in member names invalid UTF-8 and lone
// surrogates read as U+FFFD. A string value with either is reported by
// unquote, so that jsonKey refuses it: replacing would make different keys
// one.

// maxJSONDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxJSONDepth = 1000

// jsonKind is the type of a JSON value found by jsonField.
type jsonKind uint8

const (
	jsonString jsonKind = iota + 1
	jsonNumber
	jsonBool
	jsonNull
	jsonObject
	jsonArray
)

var (
	errJSONSyntax   = errors.New("malformed JSON")
	errJSONNotObj   = errors.New("not a JSON object")
	errJSONTooDeep  = errors.New("JSON nested too deeply")
	errFieldMissing = errors.New("field not found")
)

// jsonField returns the value at a dotted path ("a.b") of the JSON object
// in data: its raw bytes (a string's content without quotes, still
// escaped), its kind and whether the string holds escapes or bytes to
// coerce. The returned slice aliases data.
func jsonField(data []byte, path string) (raw []byte, kind jsonKind, escaped bool, err error) {
	for {
		seg, rest, nested := strings.Cut(path, ".")
		raw, kind, escaped, err = objectMember(data, seg)
		if err != nil || !nested {
			return raw, kind, escaped, err
		}
		if kind != jsonObject {
			return nil, 0, false, errFieldMissing
		}
		data, path = raw, rest
	}
}

// objectMember scans the whole object in data and returns its last member
// named name.
func objectMember(data []byte, name string) (raw []byte, kind jsonKind, escaped bool, err error) {
	s := scanner{data: data}
	s.skipSpace()
	if s.peek() != '{' {
		if s.skipValue() == nil && s.atEnd() {
			return nil, 0, false, errJSONNotObj
		}
		return nil, 0, false, errJSONSyntax
	}
	found := false
	err = s.scanObject(func(key []byte, keyEscaped bool, vstart int, vkind jsonKind, vescaped bool) {
		if keyEquals(key, keyEscaped, name) {
			raw, kind, escaped, found = s.valueSpan(vstart, vkind), vkind, vescaped, true
		}
	})
	if err != nil {
		return nil, 0, false, err
	}
	if !s.atEnd() {
		return nil, 0, false, errJSONSyntax
	}
	if !found {
		return nil, 0, false, errFieldMissing
	}
	return raw, kind, escaped, nil
}

func keyEquals(key []byte, escaped bool, name string) bool {
	if !escaped {
		return string(key) == name
	}
	got, _ := unquote(key) // a name with U+FFFD matches as in encoding/json
	return string(got) == name
}

// scanner walks data; pos is the next unread byte.
type scanner struct {
	data  []byte
	pos   int
	depth int
}

func (s *scanner) peek() byte {
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// atEnd skips trailing space and reports whether nothing else follows.
func (s *scanner) atEnd() bool {
	s.skipSpace()
	return s.pos == len(s.data)
}

// expect consumes c after optional space.
func (s *scanner) expect(c byte) error {
	s.skipSpace()
	if s.peek() != c {
		return errJSONSyntax
	}
	s.pos++
	return nil
}

// valueSpan returns the bytes of the value that started at start and ended
// at s.pos; for a string, without its quotes.
func (s *scanner) valueSpan(start int, kind jsonKind) []byte {
	if kind == jsonString {
		return s.data[start+1 : s.pos-1]
	}
	return s.data[start:s.pos]
}

// memberFunc receives each member of an object: its key (without quotes),
// where its value starts, the value's kind and whether a string value
// needs unquoting.
type memberFunc func(key []byte, keyEscaped bool, vstart int, vkind jsonKind, vescaped bool)

// scanObject consumes an object starting at '{' and calls fn per member.
func (s *scanner) scanObject(fn memberFunc) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	s.pos++ // '{'
	s.skipSpace()
	if s.peek() == '}' {
		s.pos++
		return nil
	}
	for {
		if err := s.scanMember(fn); err != nil {
			return err
		}
		s.skipSpace()
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return nil
		default:
			return errJSONSyntax
		}
	}
}

func (s *scanner) scanMember(fn memberFunc) error {
	s.skipSpace()
	if s.peek() != '"' {
		return errJSONSyntax
	}
	kstart := s.pos
	kescaped, err := s.scanString()
	if err != nil {
		return err
	}
	key := s.data[kstart+1 : s.pos-1]
	if err := s.expect(':'); err != nil {
		return err
	}
	s.skipSpace()
	vstart := s.pos
	kind, vescaped, err := s.scanValue()
	if err != nil {
		return err
	}
	if fn != nil {
		fn(key, kescaped, vstart, kind, vescaped)
	}
	return nil
}

func (s *scanner) skipValue() error {
	s.skipSpace()
	_, _, err := s.scanValue()
	return err
}

// scanValue consumes one value starting at s.pos (no leading space).
func (s *scanner) scanValue() (kind jsonKind, escaped bool, err error) {
	switch c := s.peek(); {
	case c == '"':
		escaped, err = s.scanString()
		return jsonString, escaped, err
	case c == '{':
		return jsonObject, false, s.scanObject(nil)
	case c == '[':
		return jsonArray, false, s.scanArray()
	case c == 't':
		return jsonBool, false, s.scanLiteral("true")
	case c == 'f':
		return jsonBool, false, s.scanLiteral("false")
	case c == 'n':
		return jsonNull, false, s.scanLiteral("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return jsonNumber, false, s.scanNumber()
	}
	return 0, false, errJSONSyntax
}

func (s *scanner) scanArray() error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	s.pos++ // '['
	s.skipSpace()
	if s.peek() == ']' {
		s.pos++
		return nil
	}
	for {
		if err := s.skipValue(); err != nil {
			return err
		}
		s.skipSpace()
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return nil
		default:
			return errJSONSyntax
		}
	}
}

func (s *scanner) enter() error {
	s.depth++
	if s.depth > maxJSONDepth {
		return errJSONTooDeep
	}
	return nil
}

func (s *scanner) leave() { s.depth-- }

func (s *scanner) scanLiteral(lit string) error {
	if !bytes.HasPrefix(s.data[s.pos:], []byte(lit)) {
		return errJSONSyntax
	}
	s.pos += len(lit)
	return nil
}

// scanNumber consumes -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) scanNumber() error {
	if s.peek() == '-' {
		s.pos++
	}
	switch c := s.peek(); {
	case c == '0':
		s.pos++
	case c >= '1' && c <= '9':
		s.digits()
	default:
		return errJSONSyntax
	}
	if s.peek() == '.' {
		s.pos++
		if s.digits() == 0 {
			return errJSONSyntax
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.pos++
		if c := s.peek(); c == '+' || c == '-' {
			s.pos++
		}
		if s.digits() == 0 {
			return errJSONSyntax
		}
	}
	return nil
}

func (s *scanner) digits() int {
	start := s.pos
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		s.pos++
	}
	return s.pos - start
}

// scanString consumes a string starting at its opening quote. escaped
// reports an escape or a byte that is not plain UTF-8, i.e. whether the
// content must go through unquote.
func (s *scanner) scanString() (escaped bool, err error) {
	s.pos++ // opening quote
	for s.pos < len(s.data) {
		switch c := s.data[s.pos]; {
		case c == '"':
			s.pos++
			return escaped, nil
		case c == '\\':
			if err := s.scanEscape(); err != nil {
				return false, err
			}
			escaped = true
		case c < 0x20:
			return false, errJSONSyntax
		case c < utf8.RuneSelf:
			s.pos++
		default:
			r, size := utf8.DecodeRune(s.data[s.pos:])
			if r == utf8.RuneError && size == 1 {
				escaped = true // not UTF-8: unquote reports it
			}
			s.pos += size
		}
	}
	return false, errJSONSyntax
}

func (s *scanner) scanEscape() error {
	s.pos++ // backslash
	switch s.peek() {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.pos++
		return nil
	case 'u':
		if hex4(s.data[s.pos+1:]) < 0 {
			return errJSONSyntax
		}
		s.pos += 5
		return nil
	}
	return errJSONSyntax
}

// hex4 decodes four hex digits, or returns -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// unquote decodes the content of a string that scanString accepted. ok is
// false when the content is not valid UTF-8 or has a \u escape of a lone
// surrogate; b then has U+FFFD in their place, as encoding/json decodes it.
func unquote(s []byte) (b []byte, ok bool) {
	b, ok = make([]byte, 0, len(s)), true
	for i := 0; i < len(s); {
		var r rune
		switch c := s[i]; {
		case c == '\\':
			var valid bool
			r, i, valid = unescape(s, i)
			ok = ok && valid
		case c < utf8.RuneSelf:
			r = rune(c)
			i++
		default:
			var size int
			r, size = utf8.DecodeRune(s[i:])
			ok = ok && (r != utf8.RuneError || size > 1)
			i += size
		}
		b = utf8.AppendRune(b, r)
	}
	return b, ok
}

// unescape decodes the escape at s[i] and returns the rune and the index
// after it. A \u surrogate pair becomes one rune; a lone surrogate U+FFFD
// and valid false.
func unescape(s []byte, i int) (r rune, next int, valid bool) {
	c := s[i+1]
	switch c {
	case 'b':
		return '\b', i + 2, true
	case 'f':
		return '\f', i + 2, true
	case 'n':
		return '\n', i + 2, true
	case 'r':
		return '\r', i + 2, true
	case 't':
		return '\t', i + 2, true
	case 'u':
		return unescapeU(s, i)
	}
	return rune(c), i + 2, true // '"', '\\', '/'
}

func unescapeU(s []byte, i int) (rune, int, bool) {
	r := hex4(s[i+2:])
	i += 6
	if !utf16.IsSurrogate(r) {
		return r, i, true
	}
	if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
		if dec := utf16.DecodeRune(r, hex4(s[i+2:])); dec != unicode.ReplacementChar {
			return dec, i + 6, true
		}
	}
	return unicode.ReplacementChar, i, false
}
