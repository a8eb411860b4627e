package conformance

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Prefixes of the byte-string forms in case files. A string without one of
// them is UTF-8 text taken as is.
const (
	prefixHex   = "hex:"   // hex:00ff        the bytes in hex
	prefixI64LE = "i64le:" // i64le:-5        8 bytes, little-endian two's complement
	prefixText  = "text:"  // text:hex:x      text that starts with a prefix
)

// ErrBytes is wrapped by every malformed byte string in a case file.
var ErrBytes = errors.New("malformed byte string")

// Bytes is a byte string of a case file: keys, values, header names and
// values, state names. It reads every form (text, hex:, i64le:, text:) and
// writes text when the bytes are readable text, hex otherwise.
type Bytes []byte

// StateValue is a state value: like Bytes, but 8 bytes that are not text
// are written as i64le:, the encoding of every integer state of the
// reference operators.
type StateValue []byte

// ParseBytes decodes a byte string of a case file.
func ParseBytes(s string) ([]byte, error) {
	switch {
	case strings.HasPrefix(s, prefixHex):
		b, err := hex.DecodeString(s[len(prefixHex):])
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %v", ErrBytes, s, err)
		}
		return b, nil
	case strings.HasPrefix(s, prefixI64LE):
		n, err := strconv.ParseInt(s[len(prefixI64LE):], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %v", ErrBytes, s, err)
		}
		return binary.LittleEndian.AppendUint64(nil, uint64(n)), nil
	case strings.HasPrefix(s, prefixText):
		return []byte(s[len(prefixText):]), nil
	}
	return []byte(s), nil
}

// FormatBytes writes b in the most readable form that reads back to b.
// With ints (state values), 8 bytes that are not readable text become
// i64le:, and a NUL byte makes bytes unreadable: 110 is "n" and seven NULs.
func FormatBytes(b []byte, ints bool) string {
	readable := isReadable(b, !ints)
	switch {
	case ints && len(b) == 8 && !readable:
		return prefixI64LE + strconv.FormatInt(int64(binary.LittleEndian.Uint64(b)), 10)
	case !readable:
		return prefixHex + hex.EncodeToString(b)
	case hasPrefix(string(b)):
		return prefixText + string(b)
	}
	return string(b)
}

// isReadable: valid UTF-8 without control characters, except NUL when
// allowed: map-state names contain it, and JSON shows it as \u0000.
func isReadable(b []byte, nul bool) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if (r != 0 || !nul) && unicode.IsControl(r) {
			return false
		}
	}
	return true
}

func hasPrefix(s string) bool {
	return strings.HasPrefix(s, prefixHex) || strings.HasPrefix(s, prefixI64LE) || strings.HasPrefix(s, prefixText)
}

// MarshalJSON writes b as text or hex:.
func (b Bytes) MarshalJSON() ([]byte, error) { return marshalString(FormatBytes(b, false)) }

// UnmarshalJSON reads any form.
func (b *Bytes) UnmarshalJSON(data []byte) error { return unmarshalBytes(data, (*[]byte)(b)) }

// MarshalJSON writes v as text, i64le: or hex:.
func (v StateValue) MarshalJSON() ([]byte, error) { return marshalString(FormatBytes(v, true)) }

// UnmarshalJSON reads any form.
func (v *StateValue) UnmarshalJSON(data []byte) error { return unmarshalBytes(data, (*[]byte)(v)) }

func unmarshalBytes(data []byte, dst *[]byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("%w: want a JSON string: %v", ErrBytes, err)
	}
	b, err := ParseBytes(s)
	if err != nil {
		return err
	}
	*dst = b
	return nil
}
