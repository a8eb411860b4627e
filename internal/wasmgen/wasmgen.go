// Package wasmgen writes WebAssembly operator modules of a chosen shape:
// many functions, many locals, large bodies, tables. Tests use it to build
// modules at and over the host's module limits without checking large
// files in, and scripts/bench-module-shapes.sh to measure what validating
// them costs.
package wasmgen

// Shape is the module to write. Every module is a valid ABI v1 operator
// (memory, ws_abi_version, ws_alloc, ws_init, ws_process) plus Functions
// filler functions of type () -> (), each declaring Locals i32 locals and
// a body of BodyBytes bytes of code of kind Code (default CodeCalls), and
// optionally a table.
type Shape struct {
	Functions int
	Locals    int
	BodyBytes int
	Code      string
	// Table adds a funcref table of TableMin elements; with TableMax >= 0
	// it declares that maximum, else none.
	Table              bool
	TableMin, TableMax int
	// Grow makes ws_process grow the table by Grow elements and return
	// what table.grow returned: the table's old size, or -1 when it may
	// not grow (the host reports either as an error code of ws_process).
	Grow int
	// Types adds that many more function types (copies of () -> ()).
	Types int
	// DataSegments adds that many empty passive data segments.
	DataSegments int
	// Globals adds that many immutable i32 globals.
	Globals int
}

// ABIVersion is what ws_abi_version returns.
const ABIVersion = 1

// Module returns the module's bytes.
func Module(s Shape) []byte {
	out := []byte("\x00asm\x01\x00\x00\x00")
	out = section(out, 1, typeSection(s.Types))
	out = section(out, 3, functionSection(s.Functions))
	if s.Table {
		out = section(out, 4, tableSection(s))
	}
	out = section(out, 5, []byte{1, 0, 1}) // one memory, min 1 page, no maximum
	if s.Globals > 0 {
		out = section(out, 6, globalSection(s.Globals))
	}
	out = section(out, 7, exportSection())
	out = section(out, 10, codeSection(s))
	if s.DataSegments > 0 {
		out = section(out, 11, dataSection(s.DataSegments))
	}
	return out
}

// Types: 0 () -> i32, 1 (i32) -> i32, 2 (i32 i32) -> i32, 3 () -> (),
// then extra copies of 3.
func typeSection(extra int) []byte {
	const i32, fn = 0x7f, 0x60
	b := appendU32(nil, uint32(4+extra))
	b = append(b,
		fn, 0, 1, i32,
		fn, 1, i32, 1, i32,
		fn, 2, i32, i32, 1, i32,
		fn, 0, 0)
	for i := 0; i < extra; i++ {
		b = append(b, fn, 0, 0)
	}
	return b
}

// globalSection holds n immutable i32 globals of value 0.
func globalSection(n int) []byte {
	const i32, immutable = 0x7f, 0
	b := appendU32(nil, uint32(n))
	for i := 0; i < n; i++ {
		b = append(b, i32, immutable, opI32Const, 0, opEnd)
	}
	return b
}

// dataSection holds n passive segments of no bytes.
func dataSection(n int) []byte {
	const passive = 1
	b := appendU32(nil, uint32(n))
	for i := 0; i < n; i++ {
		b = append(b, passive, 0)
	}
	return b
}

// The ABI functions are 0-3 (ws_abi_version, ws_alloc, ws_init,
// ws_process); the fillers follow.
func functionSection(fillers int) []byte {
	b := appendU32(nil, uint32(4+fillers))
	b = append(b, 0, 1, 2, 2)
	for i := 0; i < fillers; i++ {
		b = append(b, 3)
	}
	return b
}

func tableSection(s Shape) []byte {
	const funcref = 0x70
	b := []byte{1, funcref}
	if s.TableMax < 0 {
		return appendU32(append(b, 0), uint32(s.TableMin))
	}
	return appendU32(appendU32(append(b, 1), uint32(s.TableMin)), uint32(s.TableMax))
}

func exportSection() []byte {
	b := []byte{5}
	b = export(b, "memory", 2, 0)
	for i, name := range []string{"ws_abi_version", "ws_alloc", "ws_init", "ws_process"} {
		b = export(b, name, 0, uint32(i))
	}
	return b
}

func export(b []byte, name string, kind byte, index uint32) []byte {
	b = appendU32(b, uint32(len(name)))
	b = append(b, name...)
	return appendU32(append(b, kind), index)
}

// Opcodes the bodies use.
const (
	opEnd       = 0x0b
	opCall      = 0x10
	opDrop      = 0x1a
	opI32Store  = 0x36
	opI32Const  = 0x41
	opTableGrow = 0x0f // after the 0xfc prefix
	opRefNull   = 0xd0
	opPrefixFC  = 0xfc
)

func codeSection(s Shape) []byte {
	b := appendU32(nil, uint32(4+s.Functions))
	b = body(b, nil, []byte{opI32Const, ABIVersion}) // ws_abi_version
	b = body(b, nil, []byte{opI32Const, 0x80, 0x08}) // ws_alloc: 1024
	b = body(b, nil, []byte{opI32Const, 0})          // ws_init
	b = body(b, nil, processCode(s))                 // ws_process
	locals := fillerLocals(s.Locals)
	code := fillerCode(s.BodyBytes, s.Code)
	for i := 0; i < s.Functions; i++ {
		b = body(b, locals, code)
	}
	return b
}

// processCode returns 0, or table.grow's result when asked to grow. It
// does not visit the batch's records (an ABI misuse the host reports).
func processCode(s Shape) []byte {
	if s.Grow == 0 {
		return []byte{opI32Const, 0}
	}
	c := []byte{opRefNull, 0x70, opI32Const}
	c = appendS32(c, int32(s.Grow))
	return append(c, opPrefixFC, opTableGrow, 0)
}

func fillerLocals(n int) []byte {
	if n == 0 {
		return []byte{0}
	}
	return append(appendU32([]byte{1}, uint32(n)), 0x7f)
}

// Code kinds: what a filler body repeats.
const (
	// CodeCalls repeats "call" of the first filler (2 bytes): compiled
	// code and the compilers' working memory grow fastest with it.
	CodeCalls = "calls"
	// CodeDrops repeats "i32.const 0; drop" (3 bytes), which the compiler
	// engine optimises away.
	CodeDrops = "drops"
	// CodeStores repeats "i32.const 0; i32.const 0; i32.store" (7 bytes).
	CodeStores = "stores"
)

var codeUnits = map[string][]byte{
	"":         {opCall, 4},
	CodeCalls:  {opCall, 4},
	CodeDrops:  {opI32Const, 0, opDrop},
	CodeStores: {opI32Const, 0, opI32Const, 0, opI32Store, 2, 0},
}

// fillerCode is n bytes (rounded down to a whole number of units) of the
// kind's unit.
func fillerCode(n int, kind string) []byte {
	unit := codeUnits[kind]
	c := make([]byte, 0, n)
	for len(c)+len(unit) <= n {
		c = append(c, unit...)
	}
	return c
}

// body appends a function body: its size, locals declaration, code, end.
func body(b, locals, code []byte) []byte {
	if locals == nil {
		locals = []byte{0}
	}
	b = appendU32(b, uint32(len(locals)+len(code)+1))
	b = append(b, locals...)
	b = append(b, code...)
	return append(b, opEnd)
}

func section(b []byte, id byte, payload []byte) []byte {
	b = appendU32(append(b, id), uint32(len(payload)))
	return append(b, payload...)
}

func appendU32(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendS32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
