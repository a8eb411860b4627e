package conformance

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Every committed case formats and parses back to itself.
func TestFormatRoundTrips(t *testing.T) {
	for _, c := range loadTestCases(t) {
		out, err := c.Format()
		if err != nil {
			t.Fatalf("%s: %v", c.Path, err)
		}
		back, err := ParseCase(out)
		if err != nil {
			t.Fatalf("%s: formatted case does not parse: %v\n%s", c.Path, err, out)
		}
		back.Name, back.Path = c.Name, c.Path
		if !reflect.DeepEqual(normalize(back), normalize(c)) {
			t.Errorf("%s does not round-trip through Format", c.Path)
		}
	}
}

// normalize drops the difference between nil and empty slices.
func normalize(c *Case) *Case {
	cp := *c
	for i := range cp.Batches {
		for j := range cp.Batches[i] {
			r := &cp.Batches[i][j]
			if len(r.Key) == 0 {
				r.Key = Bytes{}
			}
			if len(r.Value) == 0 {
				r.Value = Bytes{}
			}
		}
	}
	if cp.Expect != nil {
		e := *cp.Expect
		for i := range e.Outputs {
			if len(e.Outputs[i].Key) == 0 {
				e.Outputs[i].Key = Bytes{}
			}
			if len(e.Outputs[i].Value) == 0 {
				e.Outputs[i].Value = Bytes{}
			}
		}
		cp.Expect = &e
	}
	return &cp
}

func TestFormatLayout(t *testing.T) {
	c, err := ParseCase([]byte(`{"description":"a <b> & c","operator":"failer","config":"x",
		"batches":[[{"key":"k","value":"fail"},{"key":"k","value":"ok"}]],
		"expect":{"outputs":[{"batch":0,"record":1,"output":"out","key":"k","value":"ok","headers":[["count","1"]]}],
		"dead_letters":[{"batch":0,"record":0,"kind":"record_failed"}],"state":{"k":{"count":"i64le:1"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	c.Path = filepath.Join(t.TempDir(), "failer-x.json")
	if err := c.WriteFile(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(c.Path)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "description": "a <b> & c",
  "operator": "failer",
  "config": "x",
  "batches": [
    [
      {"key":"k","value":"fail"},
      {"key":"k","value":"ok"}
    ]
  ],
  "expect": {
    "outputs": [
      {"batch":0,"record":1,"output":"out","key":"k","value":"ok","headers":[["count","1"]]}
    ],
    "dead_letters": [
      {"batch":0,"record":0,"kind":"record_failed"}
    ],
    "state": {
      "k":{"count":"i64le:1"}
    }
  }
}
`
	if !bytes.Equal(got, []byte(want)) {
		t.Fatalf("layout:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(string(got), `\u003c`) {
		t.Fatal("HTML-escaped output")
	}
}
