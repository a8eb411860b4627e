// Package sdk holds the guest SDKs, one folder per language (go, rust, c,
// assemblyscript). This package itself only carries their sources, for
// wasmstream init.
package sdk

import "embed"

// Sources is the SDK sources, for wasmstream init: the files an operator
// project needs to build and test against each SDK without a registry,
// under go/, rust/, c/ and assemblyscript/ as in this folder. It holds no
// tests, build outputs or node_modules; the Go SDK's import of the abi
// package is not here (it lives outside this folder), init adds it.
//
// The list is explicit because go:embed cannot leave out test files; a test
// in internal/scaffold fails when an SDK source file is missing from it.
//
//go:embed go/alloc.go go/clock.go go/codec.go go/codec_json.go go/declare.go go/dedup.go go/doc.go
//go:embed go/driver.go go/emit.go go/errors.go go/exports_wasip1.go go/gc.go go/gc_other.go
//go:embed go/gc_wasip1.go go/hooks_other.go go/log.go go/map_state.go go/migrate.go go/operator.go
//go:embed go/record.go go/scratch.go go/state.go go/value_state.go
//go:embed go/internal/hostcall/entry_other.go go/internal/hostcall/fake_other.go
//go:embed go/internal/hostcall/hostcall.go go/internal/hostcall/imports_wasip1.go
//go:embed go/sdktest/batch.go go/sdktest/doc.go go/sdktest/errors.go go/sdktest/fakehost.go
//go:embed go/sdktest/harness.go go/sdktest/store.go go/sdktest/ttl.go go/sdktest/types.go
//go:embed rust/Cargo.toml rust/src/*.rs rust/src/hostcall/*.rs rust/src/json/*.rs
//go:embed rust/src/testing/mod.rs rust/src/testing/fake_host.rs
//go:embed c/wasmstream.h c/wasmstream.c c/wasmstream_json.h c/wasmstream_json.c
//go:embed c/testing/wasmstream_testing.h c/testing/wasmstream_testing.c
//go:embed assemblyscript/package.json assemblyscript/asconfig.json assemblyscript/index.ts
//go:embed assemblyscript/exports.ts assemblyscript/json.ts assemblyscript/assembly/*.ts
//go:embed assemblyscript/assembly/tsconfig.json assemblyscript/test/fakehost.mjs assemblyscript/testing.mjs
var Sources embed.FS
