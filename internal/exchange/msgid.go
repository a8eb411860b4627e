package exchange

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrInvalidMsgID is the cause of the errors ParseMsgID returns.
var ErrInvalidMsgID = errors.New("exchange: not an exchange message id")

// msgIDPrefix starts every record id and says its format version (FORMAT.md §4).
const msgIDPrefix = "x1:"

// Position identifies a record a producer task publishes by what caused it: the producer's
// input record and the record's place among that record's outputs. It does not name the task:
// a replay after a rescale runs the input record on another task, and must publish the same id.
type Position struct {
	// Producer is the producing operator's name.
	Producer string
	// Input is the producer's input as its config writes it: a source name, or OPERATOR.OUTPUT
	// for a record that itself came through an exchange.
	Input string
	// Sequence is the input record's stream sequence: in the source's stream, or in the
	// upstream edge's exchange stream. At least 1.
	Sequence uint64
	// Emit is the output's 0-based position among the input record's outputs (ABI §6.5).
	Emit int
}

// MsgID is the Nats-Msg-Id of the record at p: x1:<producer>:<input>:<sequence>:<emit>, with
// ':' '%' and bytes outside printable ASCII in the names escaped as %XX. The same position
// always gives the same id, so a replay's republish is absorbed by the stream's duplicate
// window.
func MsgID(p Position) string {
	var b strings.Builder
	b.WriteString(msgIDPrefix)
	escape(&b, p.Producer)
	b.WriteByte(':')
	escape(&b, p.Input)
	fmt.Fprintf(&b, ":%d:%d", p.Sequence, p.Emit)
	return b.String()
}

// ParseMsgID reads an id MsgID wrote; for tools and tests. It refuses every other string, so that
// MsgID(ParseMsgID(s)) == s whenever it succeeds.
func ParseMsgID(s string) (Position, error) {
	rest, ok := strings.CutPrefix(s, msgIDPrefix)
	parts := strings.Split(rest, ":")
	if !ok || len(parts) != 4 {
		return Position{}, fmt.Errorf("%w: %q is not x1:<producer>:<input>:<sequence>:<emit>", ErrInvalidMsgID, s)
	}
	var p Position
	var err error
	if p.Producer, err = unescape(parts[0]); err != nil {
		return Position{}, fmt.Errorf("%w: %q: producer: %v", ErrInvalidMsgID, s, err)
	}
	if p.Input, err = unescape(parts[1]); err != nil {
		return Position{}, fmt.Errorf("%w: %q: input: %v", ErrInvalidMsgID, s, err)
	}
	if p.Sequence, err = canonicalUint(parts[2], 64); err != nil || p.Sequence == 0 {
		return Position{}, fmt.Errorf("%w: %q: sequence %q is not a number from 1", ErrInvalidMsgID, s, parts[2])
	}
	emit, err := canonicalUint(parts[3], 31)
	if err != nil {
		return Position{}, fmt.Errorf("%w: %q: emit %q is not a number from 0", ErrInvalidMsgID, s, parts[3])
	}
	p.Emit = int(emit)
	if p.Producer == "" || p.Input == "" {
		return Position{}, fmt.Errorf("%w: %q: empty producer or input", ErrInvalidMsgID, s)
	}
	return p, nil
}

// canonicalUint parses a decimal without sign or leading zeros.
func canonicalUint(s string, bits int) (uint64, error) {
	if len(s) > 1 && s[0] == '0' {
		return 0, errors.New("leading zero")
	}
	return strconv.ParseUint(s, 10, bits)
}

const hexDigits = "0123456789ABCDEF"

func escape(b *strings.Builder, s string) {
	for _, c := range []byte(s) {
		if c == ':' || c == '%' || c <= ' ' || c >= 0x7f {
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
			continue
		}
		b.WriteByte(c)
	}
}

// unescape reverses escape, refusing what escape would not have written.
func unescape(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) {
				return "", errors.New("truncated escape")
			}
			hi, lo := strings.IndexByte(hexDigits, s[i+1]), strings.IndexByte(hexDigits, s[i+2])
			d := byte(hi<<4 | lo)
			if hi < 0 || lo < 0 || !(d == ':' || d == '%' || d <= ' ' || d >= 0x7f) {
				return "", fmt.Errorf("bad escape %q", s[i:i+3])
			}
			b.WriteByte(d)
			i += 2
		case c <= ' ' || c >= 0x7f:
			return "", fmt.Errorf("unescaped byte %#x", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}
