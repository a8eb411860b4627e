package scaffold

import (
	"errors"
	"fmt"
	"strings"
)

// Lang is a guest language with an SDK.
type Lang string

// The languages init and build know.
const (
	Go             Lang = "go"
	Rust           Lang = "rust"
	C              Lang = "c"
	AssemblyScript Lang = "assemblyscript"
)

// Langs lists every language, in the order help texts show them.
var Langs = []Lang{Go, Rust, C, AssemblyScript}

// ErrUnknownLang is wrapped by ParseLang's errors.
var ErrUnknownLang = errors.New("unknown language")

// ParseLang reads a language name; "as" and "assemblyscript" are the same,
// and case does not matter.
func ParseLang(s string) (Lang, error) {
	l := Lang(strings.ToLower(strings.TrimSpace(s)))
	if l == "as" {
		l = AssemblyScript
	}
	for _, known := range Langs {
		if l == known {
			return l, nil
		}
	}
	return "", fmt.Errorf("%w %q: choose one of %s", ErrUnknownLang, s, LangList())
}

// LangList is "go, rust, c, assemblyscript".
func LangList() string {
	names := make([]string, len(Langs))
	for i, l := range Langs {
		names[i] = string(l)
	}
	return strings.Join(names, ", ")
}

// Title is the language's name in prose: "Go", "AssemblyScript".
func (l Lang) Title() string {
	switch l {
	case Go:
		return "Go"
	case Rust:
		return "Rust"
	case C:
		return "C"
	case AssemblyScript:
		return "AssemblyScript"
	}
	return string(l)
}
