package execrun

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/wasmstream/wasmstream/internal/engine"
)

const (
	// chunkRecords is how many records exec hands the engine at once: a
	// source's default fetch (engine.Options.FetchBatch).
	chunkRecords = 1024
	// maxLineBytes bounds one input line, as `wasmstream publish` does.
	maxLineBytes = 64 << 20
)

// ErrBadLine marks an input line exec cannot use; the message names the
// file and the line.
var ErrBadLine = errors.New("bad input line")

// recordReader reads the records of an input: one JSON record per line,
// blank lines skipped, the lines trimmed, as `wasmstream publish` reads
// them, so a record is the message a pipeline would receive.
type recordReader struct {
	name       string // the input as the user named it ("stdin" for -)
	sc         *bufio.Scanner
	line       int // the last line read
	maxPayload int64
	clock      func() time.Time
}

// openInput opens o.Input; the closer closes it.
func openInput(o Options) (io.Reader, string, func(), error) {
	if o.Input == "-" {
		if o.Stdin == nil {
			return nil, "", nil, fmt.Errorf("%w: --input - reads stdin, and there is none", ErrUsage)
		}
		return o.Stdin, "stdin", func() {}, nil
	}
	f, err := os.Open(o.Input)
	if err != nil {
		return nil, "", nil, fmt.Errorf("input: %w", err)
	}
	return f, o.Input, func() { f.Close() }, nil
}

func newRecordReader(r io.Reader, name string, maxPayload int64, clock func() time.Time) *recordReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLineBytes)
	return &recordReader{name: name, sc: sc, maxPayload: maxPayload, clock: clock}
}

// next reads up to n records and the line of each; none at the end.
func (r *recordReader) next(n int) ([]engine.ExecRecord, []int, error) {
	var recs []engine.ExecRecord
	var lines []int
	for len(recs) < n && r.sc.Scan() {
		r.line++
		data := bytes.TrimSpace(r.sc.Bytes())
		if len(data) == 0 {
			continue
		}
		if err := r.check(data); err != nil {
			return nil, nil, err
		}
		recs = append(recs, engine.ExecRecord{Data: bytes.Clone(data), Time: r.clock()})
		lines = append(lines, r.line)
	}
	return recs, lines, r.scanErr()
}

// check refuses what `wasmstream publish` refuses: a pipeline would never
// receive it.
func (r *recordReader) check(data []byte) error {
	if int64(len(data)) > r.maxPayload {
		return fmt.Errorf("%s:%d: %w: %d bytes is more than the max payload of %d bytes, so a pipeline could not receive it; split the record",
			r.name, r.line, ErrBadLine, len(data), r.maxPayload)
	}
	if !json.Valid(data) {
		return fmt.Errorf("%s:%d: %w: not valid JSON; exec reads one JSON record per line", r.name, r.line, ErrBadLine)
	}
	return nil
}

func (r *recordReader) scanErr() error {
	err := r.sc.Err()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, bufio.ErrTooLong):
		return fmt.Errorf("%s:%d: %w: longer than %d bytes", r.name, r.line+1, ErrBadLine, maxLineBytes)
	}
	return fmt.Errorf("%s: reading after line %d: %w", r.name, r.line, err)
}
