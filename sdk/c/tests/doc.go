// Package tests holds the Go tests of the C SDK for wasmstream operators.
//
// The SDK itself is C, one directory up: wasmstream.h and wasmstream.c,
// plus the optional JSON helpers wasmstream_json.h and wasmstream_json.c
// (see ../README.md). The C files cannot share a directory with Go files,
// which the go tool would take for cgo sources.
// The tests compile C guests with clang-19 and run them in the real host
// (package host) with Pebble-backed state (package state). Without
// clang-19 they skip, or fail when the environment variable CI is set;
// scripts/build-c.sh installs the toolchain. The tests of the native
// harness (../testing/wasmstream_testing.h) build testdata/native/ with the
// host's C compiler (cc, or CC_HOST) instead.
package tests
