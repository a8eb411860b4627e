package modref

import (
	"fmt"
	"strings"
)

// Hash prefix lengths accepted in NAME@HASH.
const (
	// MinHashPrefix is the shortest prefix: 8 hex digits, 32 bits, leave an
	// accidental clash between two versions of one operator unlikely, and
	// a clash is reported, never guessed.
	MinHashPrefix = 8
	// FullHashLen is the length of a full SHA-256 in hex.
	FullHashLen = 64
)

// Ref says where an operator module comes from: a local file (Path) or the
// registry (Name, with Hash empty for the newest version, or a prefix of at
// least MinHashPrefix lowercase hex digits).
type Ref struct {
	Path string
	Name string
	Hash string
}

// ParseRef reads a pipeline's module reference. The rule, in order:
//
//   - empty: an error;
//   - contains '/' or ends in ".wasm": a local path;
//   - NAME@HASH: that version (HASH is hex, 8 to 64 digits, any case);
//   - NAME: the newest version.
//
// NAME must pass ValidateName.
func ParseRef(s string) (Ref, error) {
	switch {
	case s == "":
		return Ref{}, fmt.Errorf("%w: empty; give a path to a .wasm file, NAME or NAME@HASH", ErrRef)
	case strings.Contains(s, "/") || strings.HasSuffix(s, ".wasm"):
		return Ref{Path: s}, nil
	}
	name, hash, versioned := strings.Cut(s, "@")
	err := ValidateName(name)
	switch {
	case err != nil && versioned:
		return Ref{}, fmt.Errorf("%w %q: before @: %w", ErrRef, s, err)
	case err != nil:
		return Ref{}, fmt.Errorf("%w %q: %w (a local path must contain / or end in .wasm, e.g. ./%s)", ErrRef, s, err, s)
	case !versioned:
		return Ref{Name: name}, nil
	}
	hash = strings.ToLower(hash)
	if err := checkHashPrefix(hash); err != nil {
		return Ref{}, fmt.Errorf("%w %q: %w", ErrRef, s, err)
	}
	return Ref{Name: name, Hash: hash}, nil
}

func checkHashPrefix(h string) error {
	if len(h) < MinHashPrefix || len(h) > FullHashLen {
		return fmt.Errorf("the version after @ has %d characters; give %d to %d hex digits of the module's sha256 (see wasmstream operator list)",
			len(h), MinHashPrefix, FullHashLen)
	}
	for i := 0; i < len(h); i++ {
		if !isHex(h[i]) {
			return fmt.Errorf("the version after @ contains %q; it is hex digits of the module's sha256 (see wasmstream operator list)", h[i:i+1])
		}
	}
	return nil
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

// IsFullHash reports whether h is a whole version: a SHA-256 in lowercase
// hex, as the registry names its objects.
func IsFullHash(h string) bool { return len(h) == FullHashLen && checkHashPrefix(h) == nil }

// IsLocal reports whether the reference is a file path.
func (r Ref) IsLocal() bool { return r.Path != "" }

// Pinned reports whether the reference names one version by its full hash.
func (r Ref) Pinned() bool { return len(r.Hash) == FullHashLen }

// String prints the reference as ParseRef reads it.
func (r Ref) String() string {
	switch {
	case r.IsLocal():
		return r.Path
	case r.Hash != "":
		return r.Name + "@" + r.Hash
	}
	return r.Name
}

// ValidateRegistry checks a Ref built without ParseRef before the registry
// looks it up: a local path is ErrLocalRef, a bad name ErrName, a bad hash
// prefix ErrRef.
func (r Ref) ValidateRegistry() error {
	if r.IsLocal() {
		return fmt.Errorf("%w: %s; the registry holds operators by NAME or NAME@HASH", ErrLocalRef, r.Path)
	}
	if err := ValidateName(r.Name); err != nil {
		return err
	}
	if r.Hash != "" {
		if err := checkHashPrefix(r.Hash); err != nil {
			return fmt.Errorf("%w %q: %w", ErrRef, r, err)
		}
	}
	return nil
}
