package conformance

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
)

// Expect is the result of running a case: what the case file expects, and
// what a run produced (Compare tells them apart).
type Expect struct {
	// InitError is set when the instance cannot be made (config
	// rejected); then no batch runs and the rest is empty.
	InitError *InitError `json:"init_error,omitempty"`
	// Declarations are the module's state_declare calls in ws_init (ABI 1.1),
	// as Instance.Declarations reports them.
	Declarations []Declaration `json:"declarations,omitempty"`
	Outputs      []Output      `json:"outputs"`
	DeadLetters  []DeadLetter  `json:"dead_letters"`
	// Migration is what the case's upgrade migrated (upgrade.go).
	Migration *Migration `json:"migration,omitempty"`
	State     State      `json:"state"`
}

// Declaration is one state declaration of the module.
type Declaration struct {
	Name      Bytes  `json:"name"`
	Version   int32  `json:"version"`
	TTLMillis int64  `json:"ttl_ms"`
	Flags     uint32 `json:"flags"`
}

// InitError is the typed error of a failed instantiation.
type InitError struct {
	Kind string `json:"kind"`           // KindName of the GuestError's Kind
	Code string `json:"code,omitempty"` // ABI code name, e.g. GUEST_CONFIG
}

// Output is one emitted record of a successful batch run, in emit order.
type Output struct {
	Batch   int      `json:"batch"`  // the batch of the record that caused it
	Record  int      `json:"record"` // that record's index in the case's batch
	Output  string   `json:"output"`
	Key     Bytes    `json:"key"`
	Value   Bytes    `json:"value"`
	Headers []Header `json:"headers,omitempty"`
}

// DeadLetter is one record the engine's policy isolated, in isolation order.
type DeadLetter struct {
	Batch  int    `json:"batch"`
	Record int    `json:"record"` // index in the case's batch
	Kind   string `json:"kind"`   // record_failed, trap, ...
	// Reason is the GuestError's detail: for record_failed, the error line
	// the guest logged. It is free text and not compared.
	Reason string `json:"-"`
}

// State is the committed state after the last batch: record key → state
// name → value, all raw bytes (Go strings hold any bytes). In files, keys
// and names are byte strings (bytes.go).
type State map[string]map[string][]byte

// Set records one state entry.
func (s State) Set(key, name, value []byte) {
	names := s[string(key)]
	if names == nil {
		names = map[string][]byte{}
		s[string(key)] = names
	}
	names[string(name)] = append([]byte(nil), value...)
}

// MarshalJSON writes keys and names as byte strings, sorted.
func (s State) MarshalJSON() ([]byte, error) {
	out := map[string]map[string]StateValue{}
	for k, names := range s {
		m := map[string]StateValue{}
		for n, v := range names {
			m[FormatBytes([]byte(n), false)] = v
		}
		out[FormatBytes([]byte(k), false)] = m
	}
	return marshalCompact(out)
}

// UnmarshalJSON reads keys and names as byte strings.
func (s *State) UnmarshalJSON(data []byte) error {
	var in map[string]map[string]StateValue
	if err := json.Unmarshal(data, &in); err != nil {
		return fmt.Errorf("%w: state: %v", ErrCase, err)
	}
	*s = State{}
	for k, names := range in {
		key, err := ParseBytes(k)
		if err != nil {
			return err
		}
		for n, v := range names {
			name, err := ParseBytes(n)
			if err != nil {
				return err
			}
			s.Set(key, name, v)
		}
	}
	return nil
}

// sortedKeys returns the map's keys in byte order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// validate checks that every output and dead letter names a record of the
// case, in order, and that the kinds and codes are known.
func (e *Expect) validate(c *Case) error {
	if e.InitError != nil {
		if _, ok := KindError(e.InitError.Kind); !ok {
			return fmt.Errorf("%w: init_error kind %q is not one of %v", ErrCase, e.InitError.Kind, KindNames())
		}
		if _, err := ParseCode(e.InitError.Code); err != nil {
			return fmt.Errorf("%w: init_error: %v", ErrCase, err)
		}
	}
	for i, o := range e.Outputs {
		if !c.has(o.Batch, o.Record) {
			return fmt.Errorf("%w: output %d names batch %d record %d, which the case does not have", ErrCase, i, o.Batch, o.Record)
		}
		if !slices.Contains(c.OutputNames(), o.Output) {
			return fmt.Errorf("%w: output %d goes to %q, which is not wired (%v)", ErrCase, i, o.Output, c.OutputNames())
		}
	}
	if err := e.validateMigration(c); err != nil {
		return err
	}
	for i, d := range e.DeadLetters {
		if !c.has(d.Batch, d.Record) {
			return fmt.Errorf("%w: dead letter %d names batch %d record %d, which the case does not have", ErrCase, i, d.Batch, d.Record)
		}
		if _, ok := KindError(d.Kind); !ok {
			return fmt.Errorf("%w: dead letter %d: kind %q is not one of %v", ErrCase, i, d.Kind, KindNames())
		}
	}
	return nil
}

// validateMigration: a case has a migration exactly when it upgrades (its
// module may also fail to start, when nothing migrates), and its error
// kinds and codes are known.
func (e *Expect) validateMigration(c *Case) error {
	if (e.Migration != nil) != (c.Upgrade != nil && e.InitError == nil) {
		return fmt.Errorf("%w: expect.migration must be given exactly when the case has an upgrade", ErrCase)
	}
	if e.Migration == nil || e.Migration.Error == nil {
		return nil
	}
	if _, ok := KindError(e.Migration.Error.Kind); !ok {
		return fmt.Errorf("%w: migration error kind %q is not one of %v", ErrCase, e.Migration.Error.Kind, KindNames())
	}
	if _, err := ParseCode(e.Migration.Error.Code); err != nil {
		return fmt.Errorf("%w: migration error: %v", ErrCase, err)
	}
	return nil
}
