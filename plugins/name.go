package plugins

import "github.com/wasmstream/wasmstream/internal/modref"

// MaxNameLen is the longest operator name.
const MaxNameLen = modref.MaxNameLen

// ValidateName accepts 1 to MaxNameLen characters of A-Z, a-z, 0-9, '_' and
// '-' (modref.ValidateName).
func ValidateName(name string) error { return modref.ValidateName(name) }
