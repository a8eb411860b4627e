package plugins

import "github.com/wasmstream/wasmstream/internal/modref"

// The module reference lives in the leaf package modref, so that the
// pipeline-file parser reads one without importing this package's runtimes
// (wazero, NATS); these names keep the registry's API in one place.

// Hash prefix lengths accepted in NAME@HASH (see modref).
const (
	MinHashPrefix = modref.MinHashPrefix
	FullHashLen   = modref.FullHashLen
)

// Ref says where an operator module comes from (modref.Ref).
type Ref = modref.Ref

// ParseRef reads a pipeline's module reference (modref.ParseRef: a local
// path, NAME or NAME@HASH).
func ParseRef(s string) (Ref, error) { return modref.ParseRef(s) }
