package scaffold

import (
	"errors"
	"fmt"
	"strings"
)

// maxNameLen keeps a project name usable as a pipeline, Go module, Cargo
// package and npm package name.
const maxNameLen = 64

// ErrBadName is wrapped by CheckName's errors.
var ErrBadName = errors.New("invalid project name")

// CheckName accepts a project name that every language's tools accept
// as is: a lower-case letter, then lower-case letters, digits, '-' and '_'.
// (npm refuses upper case; Cargo and Go would accept more.)
func CheckName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: the name is empty; give one such as payments-total", ErrBadName)
	}
	if len(name) > maxNameLen {
		return fmt.Errorf("%w: %q has %d bytes, at most %d", ErrBadName, name, len(name), maxNameLen)
	}
	if name[0] < 'a' || name[0] > 'z' {
		return fmt.Errorf("%w: %q must start with a lower-case letter a-z", ErrBadName, name)
	}
	for i, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return fmt.Errorf("%w: %q contains %q at byte %d; use only a-z, 0-9, - and _", ErrBadName, name, string(r), i)
		}
	}
	return nil
}

// crateName is the Rust library name of a project: '-' is not allowed in
// a crate's identifier.
func crateName(name string) string {
	return strings.ReplaceAll(name, "-", "_")
}
