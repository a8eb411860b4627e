package wasmstream

import (
	"bytes"
	"strconv"

	"github.com/wasmstream/wasmstream/abi"
)

// migrateValue runs the Migrate function declared for name's state on one
// stored value (ws_migrate, ABI.md §4.1). out is valid until the next call.
func migrateValue(name []byte, fromVersion int32, old []byte) (out []byte, code int64) {
	base := name
	if i := bytes.IndexByte(name, 0); i >= 0 {
		base = name[:i]
	}
	fn := migrations[string(base)]
	if fn == nil {
		Log(LevelError, "wasmstream: no migration declared for state "+strconv.Quote(string(base))+
			" (StateOptions.Migrate) but the host asked to migrate it from version "+strconv.Itoa(int(fromVersion)))
		return nil, int64(abi.ErrGuestInternal)
	}
	out, keep, err := fn(name, fromVersion, old)
	switch {
	case err != nil:
		Log(LevelError, "wasmstream: migration of state "+strconv.Quote(string(name))+" from version "+
			strconv.Itoa(int(fromVersion))+" failed: "+err.Error())
		return nil, int64(abi.ErrGuestInternal)
	case !keep:
		return nil, int64(abi.ErrNotFound)
	}
	migrated = append(migrated[:0], out...)
	return migrated, 0
}

// migrated holds the last migrated value until the host has read it.
var migrated []byte
