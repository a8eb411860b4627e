package wasmstream

import (
	"strconv"
	"strings"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/sdk/go/internal/hostcall"
)

// checkStateName panics when name cannot be a state name. State handles
// are created at package initialisation, so a bad name is a programming
// error found on the first run, like a bad regexp in regexp.MustCompile.
func checkStateName(kind, name string) {
	switch {
	case name == "":
		panic("wasmstream: " + kind + ": empty state name")
	case len(name) > abi.MaxStateNameLen:
		panic("wasmstream: " + kind + ": state name longer than 1024 bytes")
	case strings.IndexByte(name, 0) >= 0:
		// NUL separates a map's name from its keys: a NUL in a name could
		// collide with a map entry.
		panic("wasmstream: " + kind + ": state name " + strconv.Quote(name) + " contains a NUL byte")
	}
}

// getState reads state name into readBuf and returns the value, which stays
// valid until the next getState. found is false when there is no value.
func getState(name []byte) (val []byte, found bool, err error) {
	for {
		n := hostcall.StateGet(name, readBuf[:0])
		switch {
		case abi.Code(n) == abi.ErrNotFound:
			return nil, false, nil
		case n < 0:
			return nil, false, codeError(abi.Code(n))
		case int(n) <= cap(readBuf):
			return readBuf[:n], true, nil
		}
		// The host wrote nothing: grow to the announced length and retry.
		readBuf = make([]byte, 0, n)
	}
}

// decodeState runs c.Decode on a value from getState and releases an
// oversized read buffer afterwards.
func decodeState[T any](c Codec[T], val []byte) (T, error) {
	v, err := c.Decode(val)
	readBuf = keepBounded(readBuf)
	if readBuf == nil {
		readBuf = make([]byte, 0, initialScratch)
	}
	return v, err
}

func putState(name, val []byte) error {
	if code := abi.Code(hostcall.StatePut(name, val)); code < 0 {
		return codeError(code)
	}
	return nil
}

func deleteState(name []byte) error {
	if code := abi.Code(hostcall.StateDelete(name)); code < 0 {
		return codeError(code)
	}
	return nil
}
