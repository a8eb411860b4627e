// Package scaffold creates and builds operator projects: the code behind
// wasmstream init and wasmstream build.
//
// Init writes a ready project for one guest language from the templates in
// templates/ and a copy of that language's SDK (package sdk's Sources, and
// for Go the abi package in goabi/), so that the project builds and tests
// offline, without a registry. Build detects the language of a project and
// runs its toolchain with the flags of scripts/build-examples.sh; a missing
// toolchain is an error naming the packages that provide it.
//
// templates/c/testdata/want.jsonl.tmpl is what wasmstream exec --json
// prints for the C template's test records, and so depends on exec's output
// and the C SDK's messages: after a deliberate change to either, run
// make want in a project made with wasmstream init --lang c and copy its
// testdata/want.jsonl back. The READMEs' outputs are real runs, pasted.
package scaffold
