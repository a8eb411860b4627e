package lease

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strconv"
)

// value is what the lease key holds. Token is random per Acquire: a stored
// value with this Lease's token proves that nobody wrote the key since,
// which lets a Lease adopt the revision of a write whose acknowledgement
// was lost.
type value struct {
	Holder string `json:"holder"`
	Token  string `json:"token"`
}

func newValue(holder string) (value, []byte, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return value{}, nil, err
	}
	v := value{Holder: holder, Token: hex.EncodeToString(b[:])}
	raw, err := json.Marshal(v)
	return v, raw, err
}

// holderOf names the holder in a stored value; a value this package did
// not write is shown quoted.
func holderOf(data []byte) string {
	var v value
	if err := json.Unmarshal(data, &v); err != nil || v.Holder == "" {
		return strconv.Quote(string(data)) + " (not a lease value)"
	}
	return strconv.Quote(v.Holder)
}

func tokenOf(data []byte) string {
	var v value
	_ = json.Unmarshal(data, &v)
	return v.Token
}

// HolderOf returns the holder a stored lease value names; false for a
// value this package did not write.
func HolderOf(data []byte) (string, bool) {
	var v value
	if err := json.Unmarshal(data, &v); err != nil || v.Holder == "" {
		return "", false
	}
	return v.Holder, true
}
