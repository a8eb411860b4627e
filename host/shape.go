package host

import "fmt"

// Shape is what CheckStructure counted in a module.
type Shape struct {
	ImportedFunctions uint32
	Functions         uint32 // defined: the larger of the function and code section counts
	Locals            uint64 // declared by all bodies (parameters not included)
	CodeBytes         uint64 // all bodies
	LargestBody       uint32 // bytes of the largest body
	LargestBodyIndex  uint32 // its index among the bodies
	Tables            uint32 // imported and defined
	TableElements     uint64 // the defined tables' maxima added up, granted ones included
	UnboundedTables   uint32 // defined tables that declared no maximum and were granted one
	// Types, Imports, Globals, Exports, Elements, Datas and Tags count
	// the entries of their sections.
	Types, Imports, Globals, Exports, Elements, Datas, Tags uint32
	Memory                                                  *MemoryShape // the defined memory, if any
	funcDecls, bodies                                       uint32       // function and code section counts
	tables                                                  []tableDecl  // the defined tables
	tableSection                                            span
}

// tableDecl is a defined table's limits; flags and end are the offsets of
// its limits within the table section's payload.
type tableDecl struct {
	min, max   uint32
	hasMax     bool
	grant      bool // max was granted by checkTables
	flags, end int
}

// span locates a section: its id byte, its payload and the payload's size.
type span struct{ header, start, size int }

// MemoryShape is a memory's declared limits, in 64 KiB pages.
type MemoryShape struct {
	Min, Max uint32
	HasMax   bool
}

// count adds a section's vector count to the field that counts its
// entries. Tables are counted as they are read (imported ones too), and
// memories, custom, start and data count sections not at all.
func (s *Shape) count(id byte, n uint32) {
	fields := [...]*uint32{
		secType: &s.Types, secImport: &s.Imports, secFunction: &s.funcDecls,
		secGlobal: &s.Globals, secExport: &s.Exports, secElement: &s.Elements,
		secCode: &s.bodies, secData: &s.Datas, secTag: &s.Tags,
	}
	if int(id) < len(fields) && fields[id] != nil {
		*fields[id] += n
	}
}

func (s *Shape) addBody(index, size uint32, locals uint64) {
	if size > s.LargestBody {
		s.LargestBody, s.LargestBodyIndex = size, index
	}
	s.CodeBytes += uint64(size)
	s.Locals += locals
}

// String prints the shape, for logs and benchmarks.
func (s Shape) String() string {
	return fmt.Sprintf("functions %d (%d imported), locals %d, code %d bytes (largest body %d), "+
		"tables %d (%d elements), types %d, imports %d, globals %d, exports %d, elements %d, data %d, tags %d",
		s.ImportedFunctions+s.Functions, s.ImportedFunctions, s.Locals, s.CodeBytes, s.LargestBody,
		s.Tables, s.TableElements, s.Types, s.Imports, s.Globals, s.Exports, s.Elements, s.Datas, s.Tags)
}

// Entries counts the entries of the sections ModuleLimits.MaxEntries bounds.
func (s *Shape) Entries() uint64 {
	n := uint64(0)
	for _, c := range []uint32{s.Types, s.Imports, s.Globals, s.Exports, s.Tables, s.Elements, s.Datas, s.Tags} {
		n += uint64(c)
	}
	return n
}

// finish fills the totals once every section was counted.
func (s *Shape) finish() { s.Functions = max(s.funcDecls, s.bodies) }
