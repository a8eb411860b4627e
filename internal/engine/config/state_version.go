package config

import "strings"

// stateVersion reads the operator's state_version. It is compared as an opaque string with the
// one recorded in a checkpoint, so it only has to be short and safe to print and store.
func stateVersion(a *attrs) string {
	v, st := a.str("state_version")
	switch {
	case st != present:
		return ""
	case len(v) > maxStateVersionLen:
		a.errorf("state_version", "is %d characters long; use at most %d letters, digits, '.', '_' or '-'", len(v), maxStateVersionLen)
	case !validStateVersion(v):
		a.errorf("state_version", `%q is not a state version; use 1 to %d letters, digits, '.', '_' or '-', e.g. "2" or "orders-v3"`, v, maxStateVersionLen)
	default:
		return v
	}
	return ""
}

// validStateVersion accepts 1 to maxStateVersionLen characters of [A-Za-z0-9._-].
func validStateVersion(s string) bool {
	return s != "" && len(s) <= maxStateVersionLen &&
		strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == ""
}
