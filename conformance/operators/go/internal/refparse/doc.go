// Package refparse holds the input formats of the reference operators
// (conformance/OPERATORS.md), shared by the Go implementations: decimal
// integers, flat JSON objects and payments.
//
// It parses exactly the subset OPERATORS.md defines and refuses everything
// else, so that the Go reference operators give the strictest reading of the
// specification: an input outside the subset is a record error, never a
// guess.
package refparse
