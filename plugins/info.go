package plugins

import (
	"crypto/sha256"
	"encoding/hex"
)

// Info is what validation learns about a module.
type Info struct {
	// Hash is the SHA-256 of the module bytes in hex: the operator version.
	Hash string `json:"sha256"`
	// Size is the module size in bytes.
	Size int64 `json:"size"`
	// ABIVersion is the ABI version the module reported.
	ABIVersion int `json:"abi_version"`
	// Imports are the host functions (module "wasmstream") it imports,
	// sorted.
	Imports []string `json:"imports"`
	// MemoryMinPages is the initial size of its memory in 64 KiB pages.
	MemoryMinPages uint32 `json:"memory_min_pages"`
	// MemoryMaxPages is the maximum its memory declares, nil when it
	// declares none (the pipeline's limits.memory_pages applies either way).
	MemoryMaxPages *uint32 `json:"memory_max_pages,omitempty"`
}

// ShortHash is the first 12 hex digits of the hash, as tables print it;
// NAME@ShortHash is a valid reference.
func (i Info) ShortHash() string { return shortHash(i.Hash) }

// shortHashLen matches what `wasmstream checkpoints` prints for a module, so
// a version read there can be pasted as NAME@HASH.
const shortHashLen = 12

func shortHash(h string) string {
	if len(h) > shortHashLen {
		return h[:shortHashLen]
	}
	return h
}

// HashBytes returns the version of a module: its SHA-256 in hex.
func HashBytes(wasm []byte) string {
	sum := sha256.Sum256(wasm)
	return hex.EncodeToString(sum[:])
}
