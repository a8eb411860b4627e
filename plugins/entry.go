package plugins

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/modref"
)

// Entry is one version of an operator in the registry.
type Entry struct {
	// Name is the operator name.
	Name string `json:"name"`
	Info
	// PushedAt is when this version was stored, by the server's clock.
	PushedAt time.Time `json:"pushed_at"`
	// Description is the text given at push, if any.
	Description string `json:"description,omitempty"`
	// AlreadyStored is set by Push when the name already held these exact
	// bytes: nothing was written and PushedAt is the first push's.
	AlreadyStored bool `json:"-"`
}

// Ref returns the reference that pins this version: NAME@<full hash>.
func (e Entry) Ref() Ref { return Ref{Name: e.Name, Hash: e.Hash} }

// String prints NAME@<short hash>.
func (e Entry) String() string { return e.Name + "@" + e.ShortHash() }

// Object metadata keys. The object name already holds name and hash; the
// rest is what validation found, so list and inspect need not download.
const (
	metaABIVersion = "wasmstream-abi-version"
	metaImports    = "wasmstream-imports"
	metaMemoryMin  = "wasmstream-memory-min-pages"
	metaMemoryMax  = "wasmstream-memory-max-pages"
)

// objectName is the object that holds a version.
func objectName(name, hash string) string { return name + "/" + hash }

// objectMeta is what Push stores for an entry.
func objectMeta(e Entry) jetstream.ObjectMeta {
	md := map[string]string{
		metaABIVersion: strconv.Itoa(e.ABIVersion),
		metaImports:    strings.Join(e.Imports, ","),
		metaMemoryMin:  strconv.FormatUint(uint64(e.MemoryMinPages), 10),
	}
	if e.MemoryMaxPages != nil {
		md[metaMemoryMax] = strconv.FormatUint(uint64(*e.MemoryMaxPages), 10)
	}
	return jetstream.ObjectMeta{Name: objectName(e.Name, e.Hash), Description: e.Description, Metadata: md}
}

// entryFromObject reads an entry back. Objects that this package did not
// write (another tool's, in a shared bucket) are reported as errors, which
// List skips.
func entryFromObject(o *jetstream.ObjectInfo) (Entry, error) {
	name, hash, ok := strings.Cut(o.Name, "/")
	if !ok || ValidateName(name) != nil || !modref.IsFullHash(hash) {
		return Entry{}, fmt.Errorf("object %q is not an operator version (NAME/SHA256)", o.Name)
	}
	if want, err := jetstream.DecodeObjectDigest(o.Digest); err != nil || hex.EncodeToString(want) != hash {
		return Entry{}, fmt.Errorf("%w: object %q has digest %q, which is not its name's sha256; remove it and push the module again", ErrCorrupt, o.Name, o.Digest)
	}
	e := Entry{Name: name, PushedAt: o.ModTime.UTC(), Description: o.Description,
		Info: Info{Hash: hash, Size: int64(o.Size), Imports: []string{}}}
	md := o.Metadata
	abiVersion, err := strconv.Atoi(md[metaABIVersion])
	if err != nil {
		return Entry{}, fmt.Errorf("object %q: metadata %s=%q is not a number", o.Name, metaABIVersion, md[metaABIVersion])
	}
	e.ABIVersion = abiVersion
	if s := md[metaImports]; s != "" {
		e.Imports = strings.Split(s, ",")
	}
	if e.MemoryMinPages, err = parsePages(md, metaMemoryMin); err != nil {
		return Entry{}, fmt.Errorf("object %q: %w", o.Name, err)
	}
	if _, ok := md[metaMemoryMax]; ok {
		max, err := parsePages(md, metaMemoryMax)
		if err != nil {
			return Entry{}, fmt.Errorf("object %q: %w", o.Name, err)
		}
		e.MemoryMaxPages = &max
	}
	return e, nil
}

func parsePages(md map[string]string, key string) (uint32, error) {
	n, err := strconv.ParseUint(md[key], 10, 32)
	if err != nil {
		return 0, fmt.Errorf("metadata %s=%q is not a page count", key, md[key])
	}
	return uint32(n), nil
}
