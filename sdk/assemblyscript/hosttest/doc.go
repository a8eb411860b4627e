// Package hosttest runs modules built with the AssemblyScript SDK
// (sdk/assemblyscript) in the real wasmstream host, with real Pebble
// state: what the SDK's node tests check against their fake host, checked
// where it matters. It covers state declarations (ABI revision 1.1) and the
// dedup helper; the conformance suite runs the reference operators.
//
// The tests compile the operators with the pinned AssemblyScript compiler
// (node_modules, installed by scripts/build-assemblyscript.sh) and skip
// when it is missing, or fail when the environment variable CI is set.
package hosttest
