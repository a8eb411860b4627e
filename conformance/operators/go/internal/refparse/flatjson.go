package refparse

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrJSON is wrapped by every reason a value is not a flat JSON object of
// the subset OPERATORS.md defines.
var ErrJSON = errors.New("not a flat JSON object")

// Field is one member of a flat object. A string value has IsString set and
// its bytes in Str; an integer value has Int.
type Field struct {
	Name     string
	IsString bool
	Str      string
	Int      int64
}

// ParseObject parses a flat JSON object: {"name":value,...} where a value is
// a string without '"', '\' or control characters, or a decimal integer
// (ParseDecimal). Spaces may surround any token; nothing else may. Names
// must be unique. The fields come back in input order.
func ParseObject(b []byte) ([]Field, error) {
	s := scanner{b: b}
	fields, err := s.object()
	if err != nil {
		return nil, fmt.Errorf("%w: %v at byte %d", ErrJSON, err, s.pos)
	}
	return fields, nil
}

// scanner walks the bytes of one object.
type scanner struct {
	b   []byte
	pos int
}

func (s *scanner) object() ([]Field, error) {
	if err := s.expect('{'); err != nil {
		return nil, err
	}
	var fields []Field
	s.spaces()
	if s.peek() == '}' {
		s.pos++
		return fields, s.end()
	}
	for {
		f, err := s.field()
		if err != nil {
			return nil, err
		}
		for _, g := range fields {
			if g.Name == f.Name {
				return nil, fmt.Errorf("field %q appears twice", f.Name)
			}
		}
		fields = append(fields, f)
		s.spaces()
		switch s.next() {
		case ',':
		case '}':
			return fields, s.end()
		default:
			return nil, errors.New("want ',' or '}'")
		}
	}
}

func (s *scanner) field() (Field, error) {
	s.spaces()
	name, err := s.str()
	if err != nil {
		return Field{}, err
	}
	if err := s.expect(':'); err != nil {
		return Field{}, err
	}
	s.spaces()
	f := Field{Name: name}
	if s.peek() == '"' {
		f.IsString = true
		f.Str, err = s.str()
		return f, err
	}
	f.Int, err = s.integer()
	return f, err
}

// str reads a string token at the current position.
func (s *scanner) str() (string, error) {
	if s.next() != '"' {
		return "", errors.New(`want '"'`)
	}
	start := s.pos
	for s.pos < len(s.b) {
		c := s.b[s.pos]
		switch {
		case c == '"':
			v := s.b[start:s.pos]
			s.pos++
			if !utf8.Valid(v) {
				return "", errors.New("string is not UTF-8")
			}
			return string(v), nil
		case c == '\\':
			return "", errors.New("escapes are outside the subset")
		case c < 0x20:
			return "", errors.New("control character in a string")
		}
		s.pos++
	}
	return "", errors.New("unterminated string")
}

// integer reads a decimal integer token: it ends at a space, ',' or '}'.
func (s *scanner) integer() (int64, error) {
	start := s.pos
	for s.pos < len(s.b) && s.b[s.pos] != ' ' && s.b[s.pos] != ',' && s.b[s.pos] != '}' {
		s.pos++
	}
	return ParseDecimal(s.b[start:s.pos])
}

// expect skips spaces and consumes c.
func (s *scanner) expect(c byte) error {
	s.spaces()
	if s.next() != c {
		return fmt.Errorf("want %q", c)
	}
	return nil
}

// end accepts trailing spaces and nothing else.
func (s *scanner) end() error {
	s.spaces()
	if s.pos != len(s.b) {
		return errors.New("trailing bytes after the object")
	}
	return nil
}

func (s *scanner) spaces() {
	for s.pos < len(s.b) && s.b[s.pos] == ' ' {
		s.pos++
	}
}

// peek returns the byte at the current position, 0 at the end.
func (s *scanner) peek() byte {
	if s.pos < len(s.b) {
		return s.b[s.pos]
	}
	return 0
}

// next consumes and returns the byte at the current position, 0 at the end.
func (s *scanner) next() byte {
	c := s.peek()
	if s.pos < len(s.b) {
		s.pos++
	}
	return c
}
