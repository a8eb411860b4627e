// Package layering holds no code: its test checks that dependencies point
// the right way, so that a change which breaks a layer fails `go test`
// rather than a review.
//
// The rules (the table in layering_test.go; RATIONALE.md, "Layering", says
// why):
//
//   - abi, internal/modref and internal/ttlspec import the standard library
//     only: they are leaf types that guests, the config parser and the
//     runtimes share.
//   - internal/engine/config, the pipeline-file parser, depends on no runtime:
//     neither wazero, Pebble, nats-server nor nats.go, directly or
//     transitively. Checking a pipeline file needs none of them.
//   - checkpoint, the snapshot layer, depends on no transport and no guest
//     runtime: neither natsio, nats-server, nats.go nor wazero. Putting a
//     savepoint on NATS lives in internal/savepointstore.
//
// A rule names a package pattern and what its dependency closure (go list
// -deps, without tests) must not hold: module packages by import-path
// prefix, or anything outside the standard library. A rule may also forbid
// standard-library packages (say os or net for a pure protocol core); those
// are checked on the imports of non-standard packages only, since the
// standard library itself imports os everywhere. And it may forbid calls
// (say time.Now), found in the non-test files of the rule's packages.
// A failure names the package, the forbidden dependency and one import
// chain that brings it in.
package layering
