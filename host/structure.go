package host

import (
	"errors"
	"fmt"
)

// CheckStructure walks a module's sections before wazero decodes it and
// refuses a module whose vector counts claim more entries than there are
// bytes to hold them. wazero's decoder (v1.12.0) allocates for a claimed
// count before it reads a single entry, so 21 bytes claiming 177 million
// exports cost ~12 GB and seconds before they were refused; every entry
// of these vectors takes at least one byte, so the check is exact for
// well-formed modules. It also bounds each function's declared locals.
// The rest (opcodes, types, limits) is left to wazero's validation.
func CheckStructure(wasm []byte) error {
	r := wasmReader{b: wasm}
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return errStructure("not a WebAssembly binary (no \\0asm header)")
	}
	r.pos = 8
	for r.pos < len(r.b) {
		id, err := r.byte()
		if err != nil {
			return err
		}
		size, err := r.u32()
		if err != nil {
			return err
		}
		if uint64(size) > uint64(len(r.b)-r.pos) {
			return errStructure(fmt.Sprintf("section %d claims %d bytes, %d are left", id, size, len(r.b)-r.pos))
		}
		sec := wasmReader{b: r.b[r.pos : r.pos+int(size)]}
		if err := checkSection(id, &sec, len(wasm)); err != nil {
			return fmt.Errorf("section %d: %w", id, err)
		}
		r.pos += int(size)
	}
	return nil
}

// maxLocalsPerFunction bounds the locals of one function, as browsers do.
const maxLocalsPerFunction = 50_000

// Section ids (WebAssembly core spec §5.5).
const (
	secCustom    = 0
	secStart     = 8 // one function index, not a vector
	secCode      = 10
	secDataCount = 12
)

// checkSection checks the counts of one section's payload.
func checkSection(id byte, sec *wasmReader, moduleSize int) error {
	switch {
	case id == secCustom:
		return checkCustom(sec)
	case id == secDataCount:
		n, err := sec.u32()
		if err == nil && uint64(n) > uint64(moduleSize) {
			err = errStructure(fmt.Sprintf("data count %d exceeds the module's %d bytes", n, moduleSize))
		}
		return err
	case id >= 1 && id <= 11 && id != secStart:
		n, err := sec.vectorCount()
		if err != nil || id != secCode {
			return err
		}
		return checkCode(sec, n)
	}
	return nil // an unknown section is wazero's to refuse
}

// checkCode checks each function body's locals.
func checkCode(sec *wasmReader, n uint32) error {
	for i := uint32(0); i < n; i++ {
		size, err := sec.u32()
		if err != nil {
			return err
		}
		if uint64(size) > uint64(len(sec.b)-sec.pos) {
			return errStructure(fmt.Sprintf("function body %d claims %d bytes, %d are left", i, size, len(sec.b)-sec.pos))
		}
		body := wasmReader{b: sec.b[sec.pos : sec.pos+int(size)]}
		if err := checkLocals(&body, i); err != nil {
			return err
		}
		sec.pos += int(size)
	}
	return nil
}

// checkLocals bounds the total of a body's local declarations.
func checkLocals(body *wasmReader, fn uint32) error {
	groups, err := body.vectorCount()
	if err != nil {
		return err
	}
	total := uint64(0)
	for g := uint32(0); g < groups; g++ {
		n, err := body.u32()
		if err != nil {
			return err
		}
		if total += uint64(n); total > maxLocalsPerFunction {
			return errStructure(fmt.Sprintf("function body %d declares more than %d locals", fn, maxLocalsPerFunction))
		}
		if _, err := body.byte(); err != nil { // the locals' type
			return err
		}
	}
	return nil
}

// checkCustom checks the "name" section, whose subsections wazero decodes.
func checkCustom(sec *wasmReader) error {
	nameLen, err := sec.vectorCount()
	if err != nil {
		return err
	}
	name := string(sec.b[sec.pos : sec.pos+int(nameLen)])
	sec.pos += int(nameLen)
	if name != "name" {
		return nil
	}
	for sec.pos < len(sec.b) {
		if _, err := sec.byte(); err != nil {
			return err
		}
		size, err := sec.u32()
		if err != nil {
			return err
		}
		if uint64(size) > uint64(len(sec.b)-sec.pos) {
			return errStructure(fmt.Sprintf("name subsection claims %d bytes, %d are left", size, len(sec.b)-sec.pos))
		}
		sub := wasmReader{b: sec.b[sec.pos : sec.pos+int(size)]}
		if _, err := sub.vectorCount(); err != nil {
			return fmt.Errorf("name subsection: %w", err)
		}
		sec.pos += int(size)
	}
	return nil
}

// wasmReader reads LEB128 integers and bytes from a module.
type wasmReader struct {
	b   []byte
	pos int
}

var errTruncated = errStructure("truncated")

func errStructure(msg string) error { return &structureError{msg: msg} }

type structureError struct{ msg string }

func (e *structureError) Error() string { return e.msg }

// IsStructureError reports an error of CheckStructure.
func IsStructureError(err error) bool {
	var se *structureError
	return errors.As(err, &se)
}

func (r *wasmReader) byte() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, errTruncated
	}
	r.pos++
	return r.b[r.pos-1], nil
}

// u32 reads an unsigned LEB128 of at most 5 bytes.
func (r *wasmReader) u32() (uint32, error) {
	var v uint64
	for shift := 0; shift < 35; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			if v > 1<<32-1 {
				return 0, errStructure("integer over 32 bits")
			}
			return uint32(v), nil
		}
	}
	return 0, errStructure("integer longer than 5 bytes")
}

// vectorCount reads a vector's count and refuses one larger than the
// bytes left: every entry takes at least one byte.
func (r *wasmReader) vectorCount() (uint32, error) {
	n, err := r.u32()
	if err != nil {
		return 0, err
	}
	if uint64(n) > uint64(len(r.b)-r.pos) {
		return 0, errStructure(fmt.Sprintf("a vector claims %d entries, %d bytes are left", n, len(r.b)-r.pos))
	}
	return n, nil
}
