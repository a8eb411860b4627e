package host

import "fmt"

// CheckStructure walks a module's sections before wazero decodes it and
// returns the module's shape, or an error for a module that would make
// wazero allocate out of proportion to its bytes:
//
//   - a malformed one (IsStructureError): a vector count that claims more
//     entries than there are bytes to hold them. wazero's decoder (v1.12.0)
//     allocates for a claimed count before it reads a single entry, so 21
//     bytes claiming 177 million exports cost ~12 GB and seconds before
//     they were refused; every entry of these vectors takes at least one
//     byte, so the check is exact for well-formed modules;
//   - one over lim (errors.Is(err, ErrModuleLimit)): too many functions,
//     locals, code bytes, declarations or section entries, whose decoding
//     and compilation cost memory or time in proportion (see
//     ModuleLimits), or tables larger than lim.MaxTableElements, which
//     instantiation and table.grow would allocate.
//
// A table that declares no maximum is given one within the limit
// (Shape.UnboundedTables; Compile writes it into the bytes it compiles).
// Zero fields of lim take the defaults. The rest (opcodes, types, the
// memory limit) is left to wazero's validation.
func CheckStructure(wasm []byte, lim ModuleLimits) (Shape, error) {
	w := walker{r: wasmReader{b: wasm}, lim: lim.withDefaults()}
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return Shape{}, errStructure("not a WebAssembly binary (no \\0asm header)")
	}
	w.r.pos = 8
	if err := w.sections(); err != nil {
		return Shape{}, err
	}
	w.shape.finish()
	err := w.lim.check(&w.shape)
	return w.shape, err
}

// Section ids (WebAssembly core spec §5.5; tag: exception handling).
const (
	secCustom    = 0
	secType      = 1
	secImport    = 2
	secFunction  = 3
	secTable     = 4
	secMemory    = 5
	secGlobal    = 6
	secExport    = 7
	secStart     = 8 // one function index, not a vector
	secElement   = 9
	secCode      = 10
	secData      = 11
	secDataCount = 12
	secTag       = 13
)

// walker walks a module's sections, filling shape.
type walker struct {
	r      wasmReader
	lim    ModuleLimits
	shape  Shape
	header int // offset of the current section's id byte
}

func (w *walker) sections() error {
	r := &w.r
	for r.pos < len(r.b) {
		header := r.pos
		id, err := r.byte()
		if err != nil {
			return err
		}
		size, err := r.u32()
		if err != nil {
			return err
		}
		if uint64(size) > uint64(r.left()) {
			return errStructure(fmt.Sprintf("section %d claims %d bytes, %d are left", id, size, r.left()))
		}
		sec := wasmReader{b: r.b[r.pos : r.pos+int(size)]}
		w.header = header
		if err := w.section(id, &sec); err != nil {
			return fmt.Errorf("section %d: %w", id, err)
		}
		r.pos += int(size)
	}
	return nil
}

// section checks one section's payload and adds it to the shape.
func (w *walker) section(id byte, sec *wasmReader) error {
	switch {
	case id == secCustom:
		return checkCustom(sec)
	case id == secDataCount:
		n, err := sec.u32()
		if err == nil && uint64(n) > uint64(len(w.r.b)) {
			err = errStructure(fmt.Sprintf("data count %d exceeds the module's %d bytes", n, len(w.r.b)))
		}
		return err
	case id == secStart || id > secTag:
		return nil // an unknown section is wazero's to refuse
	}
	n, err := sec.vectorCount()
	if err != nil {
		return err
	}
	w.shape.count(id, n)
	switch id {
	case secImport:
		return w.imports(sec, n)
	case secTable:
		if w.shape.tableSection.size != 0 {
			return errStructure("a second table section")
		}
		w.shape.tableSection = span{header: w.header, start: w.r.pos, size: len(sec.b)}
		return w.tables(sec, n, false)
	case secMemory:
		return w.memories(sec, n)
	case secCode:
		return w.code(sec, n)
	}
	return nil
}

// Import kinds (core spec §5.5.5; tag: exception handling).
const (
	importFunc   = 0
	importTable  = 1
	importMemory = 2
	importGlobal = 3
	importTag    = 4
)

// imports counts the imported functions and checks imported tables.
func (w *walker) imports(sec *wasmReader, n uint32) error {
	for i := uint32(0); i < n; i++ {
		for range 2 { // module and field names
			size, err := sec.u32()
			if err == nil {
				err = sec.skip(size)
			}
			if err != nil {
				return fmt.Errorf("import %d: %w", i, err)
			}
		}
		if err := w.importDesc(sec, i); err != nil {
			return fmt.Errorf("import %d: %w", i, err)
		}
	}
	return nil
}

func (w *walker) importDesc(sec *wasmReader, i uint32) error {
	kind, err := sec.byte()
	if err != nil {
		return err
	}
	switch kind {
	case importFunc:
		w.shape.ImportedFunctions++
		_, err = sec.u32()
	case importTable:
		err = w.tables(sec, 1, true)
	case importMemory:
		_, _, _, err = sec.limits()
	case importGlobal:
		if err = sec.valType(); err == nil {
			_, err = sec.byte() // mutability
		}
	case importTag:
		if _, err = sec.byte(); err == nil { // attribute
			_, err = sec.u32()
		}
	default:
		err = errStructure(fmt.Sprintf("unknown import kind %#x", kind))
	}
	return err
}

// tableInitPrefix starts a table with an initialiser expression
// (function-references proposal).
const tableInitPrefix = 0x40

// tables reads n table types. Imported tables are only counted: the host
// provides none, so a module importing one never instantiates.
func (w *walker) tables(sec *wasmReader, n uint32, imported bool) error {
	for i := uint32(0); i < n; i++ {
		// Bounded here, not only by check, as it sizes shape.tables.
		if w.shape.Tables++; w.shape.Tables > w.lim.MaxEntries {
			return limitf("the module has more than %d tables", w.lim.MaxEntries)
		}
		b, err := sec.byte()
		if err != nil {
			return err
		}
		if b == tableInitPrefix {
			return limitf("table %d has an initialiser expression (function references), which this host does not run", w.shape.Tables-1)
		}
		if b == refNullPrefix || b == refPrefix {
			if err := sec.skipLEB(); err != nil {
				return err
			}
		}
		t := tableDecl{flags: sec.pos}
		if t.min, t.max, t.hasMax, err = sec.limits(); err != nil {
			return err
		}
		t.end = sec.pos
		if !imported {
			w.shape.tables = append(w.shape.tables, t)
		}
	}
	return nil
}

// memories reads the memory section's limits (at most one memory: wazero
// refuses more).
func (w *walker) memories(sec *wasmReader, n uint32) error {
	for i := uint32(0); i < n; i++ {
		min, max, hasMax, err := sec.limits()
		if err != nil {
			return err
		}
		w.shape.Memory = &MemoryShape{Min: min, Max: max, HasMax: hasMax}
	}
	return nil
}

// code checks each function body's size and locals.
func (w *walker) code(sec *wasmReader, n uint32) error {
	for i := uint32(0); i < n; i++ {
		size, err := sec.u32()
		if err != nil {
			return err
		}
		if uint64(size) > uint64(sec.left()) {
			return errStructure(fmt.Sprintf("function body %d claims %d bytes, %d are left", i, size, sec.left()))
		}
		body := wasmReader{b: sec.b[sec.pos : sec.pos+int(size)]}
		locals, err := w.locals(&body, i)
		if err != nil {
			return err
		}
		w.shape.addBody(i, size, locals)
		sec.pos += int(size)
	}
	return nil
}

// locals sums a body's local declarations, refusing more than
// lim.MaxFunctionLocals before the sum can grow further.
func (w *walker) locals(body *wasmReader, fn uint32) (uint64, error) {
	groups, err := body.vectorCount()
	if err != nil {
		return 0, err
	}
	total := uint64(0)
	for g := uint32(0); g < groups; g++ {
		n, err := body.u32()
		if err != nil {
			return 0, err
		}
		if total += uint64(n); total > uint64(w.lim.MaxFunctionLocals) {
			return 0, limitf("function body %d declares more than %d locals; split the function", fn, w.lim.MaxFunctionLocals)
		}
		if err := body.valType(); err != nil {
			return 0, err
		}
	}
	return total, nil
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
		if uint64(size) > uint64(sec.left()) {
			return errStructure(fmt.Sprintf("name subsection claims %d bytes, %d are left", size, sec.left()))
		}
		sub := wasmReader{b: sec.b[sec.pos : sec.pos+int(size)]}
		if _, err := sub.vectorCount(); err != nil {
			return fmt.Errorf("name subsection: %w", err)
		}
		sec.pos += int(size)
	}
	return nil
}
