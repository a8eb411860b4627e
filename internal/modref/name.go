package modref

import "fmt"

// MaxNameLen is the longest operator name.
const MaxNameLen = 64

// ValidateName accepts 1 to MaxNameLen characters of A-Z, a-z, 0-9, '_' and
// '-'. Names have no '/' or '.', so no name looks like a path (see ParseRef).
func ValidateName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: the name is empty; give 1 to %d characters of A-Z, a-z, 0-9, _ and -", ErrName, MaxNameLen)
	case len(name) > MaxNameLen:
		return fmt.Errorf("%w: %q has %d characters, over %d; choose a shorter name", ErrName, name, len(name), MaxNameLen)
	}
	for i := 0; i < len(name); i++ {
		if !nameChar(name[i]) {
			return fmt.Errorf("%w: %q contains %q at byte %d; use only A-Z, a-z, 0-9, _ and -", ErrName, name, name[i:i+1], i)
		}
	}
	return nil
}

func nameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
