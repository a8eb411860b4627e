// Package plugins handles operator modules as artefacts: it validates a
// .wasm file before anyone runs it, stores it in a registry on a JetStream
// Object Store bucket, and turns a reference to it into a local file.
//
// # Versions
//
// An operator's version is the SHA-256 of its module bytes, in hex. The same
// bytes pushed twice under one name are one version; a rebuilt module is a
// new version. Checkpoints record this hash, so it is also what decides
// whether saved state belongs to a module.
//
// # References
//
// A pipeline's module attribute is parsed by ParseRef:
//
//   - a local path when it contains a '/' or ends in ".wasm"
//     ("operator/risk.wasm", "./risk", "/opt/ops/risk.wasm", "risk.wasm");
//   - otherwise NAME, the newest version of that operator in the registry
//     ("risk");
//   - or NAME@HASH, one version, where HASH is the full SHA-256 or a prefix
//     of at least 8 hex digits that only one version of NAME starts with
//     ("risk@3f2a9c1d").
//
// Operator names are 1 to 64 characters of A-Z, a-z, 0-9, '_' and '-', so a
// name can never be mistaken for a path. For a file in the current directory
// without the .wasm suffix, write "./FILE".
//
// # Registry layout
//
// Each version is one object named "NAME/HASH" in the bucket (default
// DefaultBucket, file storage, created by the first push). Its metadata holds
// what validation found: ABI version, imported host functions, memory
// limits. "Newest" is the version pushed last, by the server's clock.
//
// # Local cache
//
// Fetch writes a version to <cacheDir>/<HASH>.wasm and reuses that file while
// its bytes still hash to its name; a damaged file is replaced, never used.
// Compiled code is cached separately by wazero, keyed by the same hash.
package plugins
