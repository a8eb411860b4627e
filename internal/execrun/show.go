package execrun

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"unicode"
	"unicode/utf8"
)

// Encodings of printed bytes.
const (
	EncodingJSON   = "json"   // valid JSON: printed as is (compacted with --json)
	EncodingText   = "text"   // valid UTF-8 without control characters
	EncodingHex    = "hex"    // other bytes, up to maxHexBytes
	EncodingBase64 = "base64" // other bytes, longer (standard alphabet, padded)
)

// maxHexBytes: short binary values (counters, flags) read best in hex.
const maxHexBytes = 32

// shown is bytes as exec prints them and the encoding it used.
type shown struct {
	Text     string
	Encoding string
}

func show(b []byte) shown {
	switch {
	case printable(b) && json.Valid(b):
		return shown{string(b), EncodingJSON}
	case printable(b):
		return shown{string(b), EncodingText}
	case len(b) <= maxHexBytes:
		return shown{hex.EncodeToString(b), EncodingHex}
	}
	return shown{base64.StdEncoding.EncodeToString(b), EncodingBase64}
}

// printable: valid UTF-8 that prints on one line without surprises.
func printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	return bytes.IndexFunc(b, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }) < 0
}

// jsonValue is s for a JSON document: the JSON itself when it is JSON,
// else a string.
func (s shown) jsonValue() any {
	if s.Encoding != EncodingJSON {
		return s.Text
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s.Text)); err != nil {
		return s.Text
	}
	return json.RawMessage(buf.Bytes())
}
