package ctlrec

import (
	"errors"
	"strings"
	"testing"
)

const sum = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestDecodeRefusals(t *testing.T) {
	cases := map[string]string{
		"unknown field":   `{"version":1,"checkpoint":1,"generation":1,"assignment":1,"manifest":"m","sha256":"` + sum + `","extra":1}`,
		"other version":   `{"version":2,"checkpoint":1,"generation":1,"assignment":1,"manifest":"m","sha256":"` + sum + `"}`,
		"checkpoint 0":    `{"version":1,"checkpoint":0,"generation":1,"assignment":1,"manifest":"m","sha256":"` + sum + `"}`,
		"no manifest":     `{"version":1,"checkpoint":1,"generation":1,"assignment":1,"sha256":"` + sum + `"}`,
		"short sha256":    `{"version":1,"checkpoint":1,"generation":1,"assignment":1,"manifest":"m","sha256":"abcd"}`,
		"trailing data":   `{"version":1,"checkpoint":1,"generation":1,"assignment":1,"manifest":"m","sha256":"` + sum + `"} {}`,
		"not json":        `checkpoint 1`,
		"negative number": `{"version":1,"checkpoint":-1,"generation":1,"assignment":1,"manifest":"m","sha256":"` + sum + `"}`,
	}
	for name, data := range cases {
		if _, err := DecodeCompleted([]byte(data)); !errors.Is(err, ErrRecord) {
			t.Errorf("%s: err = %v, want ErrRecord", name, err)
		}
	}
	if _, err := DecodePending([]byte(`{"version":1,"checkpoint":3,"generation":0,"assignment":1}`)); !errors.Is(err, ErrRecord) || !strings.Contains(err.Error(), "generation 0") {
		t.Errorf("pending of generation 0: err = %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"version":1,"checkpoint":1,"generation":1,"assignment":1,"manifest":"m","sha256":"` + sum + `"}`))
	f.Add([]byte(`{"version":1,"checkpoint":2,"generation":7,"assignment":3,"final":true}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if c, err := DecodeCompleted(data); err == nil && c.check() != nil {
			t.Fatalf("accepted an invalid completion record %+v", c)
		}
		if p, err := DecodePending(data); err == nil && p.check() != nil {
			t.Fatalf("accepted an invalid claim %+v", p)
		}
	})
}
