package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
)

// Operators are the reference operators of OPERATORS.md, which every
// language implements as conformance/build/<lang>/<operator>.wasm.
var Operators = []string{"counter", "dedup", "join", "failer", "ttldedup", "ledger1", "ledger2"}

// ErrCase is wrapped by every problem with a case file.
var ErrCase = errors.New("invalid conformance case")

// Case is one conformance case: an operator, its config, input batches and
// the expected result. The file name (without .json) is its name.
type Case struct {
	Name        string   `json:"-"`
	Path        string   `json:"-"`
	Description string   `json:"description"`
	Operator    string   `json:"operator"`
	Config      Bytes    `json:"config,omitempty"`  // handed to ws_init; empty = none
	Outputs     []string `json:"outputs,omitempty"` // wired outputs; default ["out"]
	// ClockMillis is the host clock at each batch, in milliseconds after
	// ClockEpoch: the processing time the guest and the state TTLs see.
	// Absent (or shorter than the batches): ClockEpoch, so runs repeat exactly.
	ClockMillis []int64 `json:"clock_ms,omitempty"`
	Batches     []Batch `json:"batches"`
	// Upgrade, when set, replaces the module after the batches (upgrade.go).
	Upgrade *Upgrade `json:"upgrade,omitempty"`
	Expect  *Expect  `json:"expect,omitempty"` // nil until written or -rewrite
}

// ClockEpoch is the processing time of a case's batches unless clock_ms
// says otherwise: a fixed time, so a case never depends on the real clock.
var ClockEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// ClockAt is the processing time of batch b.
func (c *Case) ClockAt(b int) time.Time {
	if b < len(c.ClockMillis) {
		return ClockEpoch.Add(time.Duration(c.ClockMillis[b]) * time.Millisecond)
	}
	return ClockEpoch
}

// Batch is the records of one ws_process call, before isolation.
type Batch []Record

// Record is one input record.
type Record struct {
	Key       Bytes    `json:"key"`
	Value     Bytes    `json:"value"`
	Input     uint32   `json:"input,omitempty"`      // index of the operator input
	EventTime int64    `json:"event_time,omitempty"` // Unix nanoseconds
	Headers   []Header `json:"headers,omitempty"`
}

// Header is one header pair, written ["name","value"].
type Header struct{ Name, Value Bytes }

// MarshalJSON writes the pair as a two-element array.
func (h Header) MarshalJSON() ([]byte, error) { return marshalCompact([2]Bytes{h.Name, h.Value}) }

// UnmarshalJSON reads a two-element array.
func (h *Header) UnmarshalJSON(data []byte) error {
	var pair []Bytes
	if err := json.Unmarshal(data, &pair); err != nil || len(pair) != 2 {
		return fmt.Errorf("%w: a header is [\"name\", \"value\"], got %s", ErrCase, data)
	}
	h.Name, h.Value = pair[0], pair[1]
	return nil
}

// OutputNames returns the wired outputs of the case.
func (c *Case) OutputNames() []string {
	if len(c.Outputs) == 0 {
		return []string{"out"}
	}
	return c.Outputs
}

// HostRecords converts batch b to the host's records, headers encoded as
// the ABI's header list.
func (c *Case) HostRecords(b int) []host.Record {
	batch := c.batch(b)
	recs := make([]host.Record, len(batch))
	for i, r := range batch {
		var hdr []byte
		for _, h := range r.Headers {
			hdr = abi.AppendHeader(hdr, string(h.Name), string(h.Value))
		}
		recs[i] = host.Record{Key: r.Key, Value: r.Value, Headers: hdr, EventTime: r.EventTime, Input: r.Input}
	}
	return recs
}

// LoadCases reads every *.json case in dir, sorted by name.
func LoadCases(dir string) ([]*Case, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	cases := make([]*Case, 0, len(paths))
	for _, p := range paths {
		c, err := LoadCase(p)
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%w: no *.json cases in %s", ErrCase, dir)
	}
	return cases, nil
}

// LoadCase reads and validates one case file. Unknown fields are errors, so
// a misspelt field cannot silently drop an expectation.
func LoadCase(path string) (*Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := ParseCase(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.Path = path
	c.Name = strings.TrimSuffix(filepath.Base(path), ".json")
	if err := c.validateName(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ParseCase decodes and validates the JSON of a case.
func ParseCase(data []byte) (*Case, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Case
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCase, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: trailing data after the case object", ErrCase)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Validate checks what the JSON decoder cannot: a known operator, batches
// that are not empty, and expectations that point at existing records.
func (c *Case) Validate() error {
	if !slices.Contains(Operators, c.Operator) {
		return fmt.Errorf("%w: operator %q is not one of %v", ErrCase, c.Operator, Operators)
	}
	if len(c.ClockMillis) > len(c.Batches) {
		return fmt.Errorf("%w: clock_ms has %d entries for %d batches; give one per batch", ErrCase, len(c.ClockMillis), len(c.Batches))
	}
	for i := range c.batchCount() {
		if len(c.batch(i)) == 0 {
			return fmt.Errorf("%w: batch %d is empty; the host never sends an empty batch", ErrCase, i)
		}
	}
	if u := c.Upgrade; u != nil && !slices.Contains(Operators, u.Operator) {
		return fmt.Errorf("%w: upgrade operator %q is not one of %v", ErrCase, u.Operator, Operators)
	}
	if c.Expect == nil {
		return nil
	}
	return c.Expect.validate(c)
}

// validateName: the name becomes the operator name of the run, which the
// state backend limits to 255 bytes.
func (c *Case) validateName() error {
	if c.Name == "" || len(c.Name) > 255 || strings.ContainsAny(c.Name, " \t") {
		return fmt.Errorf("%w: file name %q must be 1..255 bytes without spaces", ErrCase, c.Name)
	}
	return nil
}

// has reports whether batch b has record r.
func (c *Case) has(b, r int) bool {
	return b >= 0 && b < c.batchCount() && r >= 0 && r < len(c.batch(b))
}

// batchCount is the number of batches, the upgrade's included: those
// follow the case's own, so that batch b of an output or dead letter is
// c.Batches[b] or, past them, Upgrade.Batches[b-len(c.Batches)].
func (c *Case) batchCount() int {
	if c.Upgrade == nil {
		return len(c.Batches)
	}
	return len(c.Batches) + len(c.Upgrade.Batches)
}

// batch returns batch b in batchCount's numbering.
func (c *Case) batch(b int) Batch {
	if b < len(c.Batches) {
		return c.Batches[b]
	}
	return c.Upgrade.Batches[b-len(c.Batches)]
}
