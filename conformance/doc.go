// Package conformance checks that every SDK's reference operators behave
// byte for byte as OPERATORS.md specifies, on both wazero engines, through
// the real host (host.Instance) and the real state backend (state.Backend
// on Pebble), with the engine's failure policy (policy.go), and for a case
// that upgrades, the host's state migration (upgrade.go). It also runs a
// corpus of hostile hand-written modules (hostile/) and checks that each
// ends in the typed error its table row names while the host lives on.
//
// The test files hold the entry points (TestConformance, TestHostile);
// the non-test files hold what they share: the case format (case.go,
// bytes.go, casefile.go), the failure policy, the runner, the comparison
// and the hostile table. README.md explains how to run, add a case or add
// a language.
package conformance
