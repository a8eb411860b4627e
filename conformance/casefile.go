package conformance

import (
	"bytes"
	"encoding/json"
	"os"
)

// Format writes the case as its file: one record, output or dead letter per
// line, so that a reviewer reads a case (and a -rewrite diff) line by line.
// It reads back to the same case with ParseCase.
func (c *Case) Format() ([]byte, error) {
	w := &fileWriter{}
	w.line(0, "{")
	w.field(1, "description", c.Description, false)
	w.field(1, "operator", c.Operator, false)
	if len(c.Config) > 0 {
		w.field(1, "config", c.Config, false)
	}
	if len(c.Outputs) > 0 {
		w.field(1, "outputs", c.Outputs, false)
	}
	if len(c.ClockMillis) > 0 {
		w.field(1, "clock_ms", c.ClockMillis, false)
	}
	w.batches(1, "batches", c.Batches, c.Expect == nil && c.Upgrade == nil)
	if c.Upgrade != nil {
		w.upgrade(c.Upgrade, c.Expect == nil)
	}
	if c.Expect != nil {
		w.expect(c.Expect)
	}
	w.line(0, "}")
	return w.buf.Bytes(), w.err
}

// WriteFile formats the case into its file.
func (c *Case) WriteFile() error {
	b, err := c.Format()
	if err != nil {
		return err
	}
	return os.WriteFile(c.Path, b, 0o644)
}

// fileWriter builds the indented layout; the first error sticks.
type fileWriter struct {
	buf bytes.Buffer
	err error
}

func (w *fileWriter) line(indent int, s string) {
	for range indent {
		w.buf.WriteString("  ")
	}
	w.buf.WriteString(s)
	w.buf.WriteByte('\n')
}

// field writes "name": value on one line.
func (w *fileWriter) field(indent int, name string, v any, last bool) {
	w.line(indent, w.compact(name)+": "+w.compact(v)+comma(last))
}

// list writes "name": [ one element per line ].
func (w *fileWriter) list(indent int, name string, n int, elem func(i int) any, last bool) {
	if n == 0 {
		w.line(indent, w.compact(name)+": []"+comma(last))
		return
	}
	w.line(indent, w.compact(name)+": [")
	for i := range n {
		w.line(indent+1, w.compact(elem(i))+comma(i == n-1))
	}
	w.line(indent, "]"+comma(last))
}

func (w *fileWriter) batches(indent int, name string, bs []Batch, last bool) {
	w.line(indent, w.compact(name)+": [")
	for i, b := range bs {
		w.line(indent+1, "[")
		for j, r := range b {
			w.line(indent+2, w.compact(r)+comma(j == len(b)-1))
		}
		w.line(indent+1, "]"+comma(i == len(bs)-1))
	}
	w.line(indent, "]"+comma(last))
}

func (w *fileWriter) upgrade(u *Upgrade, last bool) {
	w.line(1, `"upgrade": {`)
	w.field(2, "operator", u.Operator, len(u.Config) == 0 && len(u.Batches) == 0)
	if len(u.Config) > 0 {
		w.field(2, "config", u.Config, len(u.Batches) == 0)
	}
	if len(u.Batches) > 0 {
		w.batches(2, "batches", u.Batches, true)
	}
	w.line(1, "}"+comma(last))
}

func (w *fileWriter) expect(e *Expect) {
	w.line(1, `"expect": {`)
	if e.InitError != nil {
		w.field(2, "init_error", e.InitError, false)
	}
	if len(e.Declarations) > 0 {
		w.list(2, "declarations", len(e.Declarations), func(i int) any { return e.Declarations[i] }, false)
	}
	w.list(2, "outputs", len(e.Outputs), func(i int) any { return e.Outputs[i] }, false)
	w.list(2, "dead_letters", len(e.DeadLetters), func(i int) any { return e.DeadLetters[i] }, false)
	if e.Migration != nil {
		w.field(2, "migration", e.Migration, false)
	}
	w.state(e.State)
	w.line(1, "}")
}

// state writes one record key per line.
func (w *fileWriter) state(s State) {
	if len(s) == 0 {
		w.line(2, `"state": {}`)
		return
	}
	w.line(2, `"state": {`)
	keys := sortedKeys(s)
	for i, k := range keys {
		one := State{k: s[k]}
		b := w.compact(one) // {"key":{...}}
		w.line(3, b[1:len(b)-1]+comma(i == len(keys)-1))
	}
	w.line(2, "}")
}

func (w *fileWriter) compact(v any) string {
	b, err := marshalCompact(v)
	if err != nil && w.err == nil {
		w.err = err
	}
	return string(b)
}

func comma(last bool) string {
	if last {
		return ""
	}
	return ","
}

// marshalCompact is json.Marshal without HTML escaping: case files hold
// payloads, and "<" must read as "<".
func marshalCompact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// marshalString writes s as a JSON string.
func marshalString(s string) ([]byte, error) { return marshalCompact(s) }
