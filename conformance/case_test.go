package conformance

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/abi"
)

const minimalCase = `{"description":"d","operator":"dedup","batches":[[{"key":"a","value":"1"}]]}`

func TestParseCaseRefuses(t *testing.T) {
	tests := map[string]string{
		"unknown field":               `{"description":"d","operator":"dedup","batchs":[]}`,
		"unknown operator":            `{"description":"d","operator":"sum","batches":[[{"key":"a","value":"1"}]]}`,
		"empty batch":                 `{"description":"d","operator":"dedup","batches":[[]]}`,
		"bad bytes":                   `{"description":"d","operator":"dedup","batches":[[{"key":"hex:0","value":"1"}]]}`,
		"header not a pair":           `{"description":"d","operator":"dedup","batches":[[{"key":"a","value":"1","headers":[["h"]]}]]}`,
		"output of no record":         `{"description":"d","operator":"dedup","batches":[[{"key":"a","value":"1"}]],"expect":{"outputs":[{"batch":0,"record":1,"output":"out","key":"a","value":"1"}],"dead_letters":[],"state":{}}}`,
		"output not wired":            `{"description":"d","operator":"dedup","batches":[[{"key":"a","value":"1"}]],"expect":{"outputs":[{"batch":0,"record":0,"output":"other","key":"a","value":"1"}],"dead_letters":[],"state":{}}}`,
		"dead letter no batch":        `{"description":"d","operator":"dedup","batches":[[{"key":"a","value":"1"}]],"expect":{"outputs":[],"dead_letters":[{"batch":1,"record":0,"kind":"trap"}],"state":{}}}`,
		"unknown kind":                `{"description":"d","operator":"dedup","batches":[[{"key":"a","value":"1"}]],"expect":{"outputs":[],"dead_letters":[{"batch":0,"record":0,"kind":"boom"}],"state":{}}}`,
		"unknown init code":           `{"description":"d","operator":"dedup","batches":[[{"key":"a","value":"1"}]],"expect":{"init_error":{"kind":"init","code":"NOPE"},"outputs":[],"dead_letters":[],"state":{}}}`,
		"trailing data":               minimalCase + `{}`,
		"unknown upgrade operator":    `{"description":"d","operator":"ledger1","batches":[[{"key":"a","value":"1"}]],"upgrade":{"operator":"ledger3"}}`,
		"empty upgrade batch":         `{"description":"d","operator":"ledger1","batches":[[{"key":"a","value":"1"}]],"upgrade":{"operator":"ledger2","batches":[[]]}}`,
		"upgrade without migration":   `{"description":"d","operator":"ledger1","batches":[[{"key":"a","value":"1"}]],"upgrade":{"operator":"ledger2"},"expect":{"outputs":[],"dead_letters":[],"state":{}}}`,
		"migration without upgrade":   `{"description":"d","operator":"ledger1","batches":[[{"key":"a","value":"1"}]],"expect":{"outputs":[],"dead_letters":[],"migration":{"declarations":[],"migrated":0,"deleted":0},"state":{}}}`,
		"unknown migration kind":      `{"description":"d","operator":"ledger1","batches":[[{"key":"a","value":"1"}]],"upgrade":{"operator":"ledger2"},"expect":{"outputs":[],"dead_letters":[],"migration":{"declarations":[],"migrated":0,"deleted":0,"error":{"kind":"boom","name":"total","key":"a"}},"state":{}}}`,
		"upgrade output of no record": `{"description":"d","operator":"ledger1","batches":[[{"key":"a","value":"1"}]],"upgrade":{"operator":"ledger2","batches":[[{"key":"a","value":"1"}]]},"expect":{"outputs":[{"batch":2,"record":0,"output":"out","key":"a","value":"1"}],"dead_letters":[],"migration":{"declarations":[],"migrated":0,"deleted":0},"state":{}}}`,
	}
	for name, in := range tests {
		if _, err := ParseCase([]byte(in)); err == nil {
			t.Errorf("%s: accepted", name)
		} else if !errors.Is(err, ErrCase) && !errors.Is(err, ErrBytes) {
			t.Errorf("%s: %v wraps neither ErrCase nor ErrBytes", name, err)
		}
	}
}

func TestHostRecordsEncodesHeaders(t *testing.T) {
	c, err := ParseCase([]byte(`{"description":"d","operator":"dedup","batches":[[
		{"key":"hex:00","value":"v","input":1,"event_time":-3,"headers":[["h","1"],["h","2"]]}]]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := c.HostRecords(0)[0]
	want := abi.AppendHeader(abi.AppendHeader(nil, "h", "1"), "h", "2")
	if string(r.Key) != "\x00" || string(r.Value) != "v" || r.Input != 1 || r.EventTime != -3 || string(r.Headers) != string(want) {
		t.Fatalf("host record %+v", r)
	}
	if got := c.OutputNames(); len(got) != 1 || got[0] != "out" {
		t.Fatalf("default outputs %v", got)
	}
}

func TestLoadCasesNamesThem(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dedup-x.json"), []byte(minimalCase), 0o644); err != nil {
		t.Fatal(err)
	}
	cases, err := LoadCases(dir)
	if err != nil || len(cases) != 1 || cases[0].Name != "dedup-x" {
		t.Fatalf("LoadCases: %v, %v", cases, err)
	}
	if _, err := LoadCases(t.TempDir()); !errors.Is(err, ErrCase) {
		t.Fatalf("empty dir: %v, want ErrCase", err)
	}
	bad := filepath.Join(dir, "with space.json")
	if err := os.WriteFile(bad, []byte(minimalCase), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCases(dir); err == nil || !strings.Contains(err.Error(), "with space") {
		t.Fatalf("a file name with a space: %v", err)
	}
}

// Every committed case parses, names a known operator and has an
// expectation: a case without one would never be checked. Every operator
// runs in a case, as the module that starts or as the one an upgrade brings.
func TestCommittedCasesHaveExpectations(t *testing.T) {
	cases := loadTestCases(t)
	ops := map[string]int{}
	for _, c := range cases {
		ops[c.Operator]++
		if c.Upgrade != nil {
			ops[c.Upgrade.Operator]++
		}
		if c.Expect == nil {
			t.Errorf("%s has no expectation", c.Path)
		}
	}
	for _, op := range Operators {
		if ops[op] == 0 {
			t.Errorf("no case for operator %s", op)
		}
	}
}

func FuzzParseCase(f *testing.F) {
	f.Add([]byte(minimalCase))
	if b, err := os.ReadFile(filepath.Join("cases", "counter-basic.json")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseCase(b)
		if err != nil {
			return
		}
		// What parses formats and parses again to the same case.
		out, err := c.Format()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseCase(out); err != nil {
			t.Fatalf("formatted case does not parse: %v\n%s", err, out)
		}
	})
}
