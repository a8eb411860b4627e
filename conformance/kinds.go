package conformance

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
)

// kinds names the host's GuestError kinds in case files and tables.
var kinds = []struct {
	name string
	err  error
}{
	{"record_failed", host.ErrRecordFailed},
	{"trap", host.ErrTrap},
	{"timeout", host.ErrTimeout},
	{"memory_limit", host.ErrMemoryLimit},
	{"abi_misuse", host.ErrABIMisuse},
	{"init", host.ErrInit},
	{"invalid_module", host.ErrInvalidModule},
	{"module_limit", host.ErrModuleLimit},
	{"unknown_import", host.ErrUnknownImport},
	{"missing_export", host.ErrMissingExport},
	{"abi_version", host.ErrABIVersion},
	{"instance_closed", host.ErrInstanceClosed},
}

// KindName returns the name of the kind err wraps, or "" for none.
func KindName(err error) string {
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return ""
}

// KindError returns the host sentinel called name.
func KindError(name string) (error, bool) {
	for _, k := range kinds {
		if k.name == name {
			return k.err, true
		}
	}
	return nil, false
}

// KindNames lists the kind names, for error messages.
func KindNames() []string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.name
	}
	return names
}

// ParseCode reads an ABI code by its registry name (NOT_FOUND, GUEST_CONFIG),
// "" or "-" for OK, or as a number for codes outside the registry.
func ParseCode(s string) (abi.Code, error) {
	if s == "" || s == "-" {
		return abi.OK, nil
	}
	for c := abi.Code(0); c >= -200; c-- {
		if c.String() == s {
			return c, nil
		}
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("unknown ABI code %q: use a registry name such as GUEST_CONFIG, or a number", s)
	}
	return abi.Code(n), nil
}

// CodeName writes a code as ParseCode reads it: "" for OK.
func CodeName(c abi.Code) string {
	if c == abi.OK {
		return ""
	}
	if s := c.String(); !strings.HasPrefix(s, "CODE(") {
		return s
	}
	return strconv.Itoa(int(c))
}
