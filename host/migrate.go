package host

import (
	"context"
	"fmt"
	"strings"

	"github.com/wasmstream/wasmstream/abi"
)

// ErrNoMigrate is the GuestError kind of a migration asked of a module
// that exports no ws_migrate.
var ErrNoMigrate = fmt.Errorf("%w: the module exports no %s", ErrMissingExport, abi.ExportMigrate)

// Migrate converts one stored value of state name, written under
// fromVersion, with the guest's ws_migrate (ABI.md §4, revision 1.2). It
// returns the new value (a copy), or keep=false when the guest deletes the
// entry. A trap, timeout, memory exhaustion, misuse or a failure code is a
// *GuestError; the instance is then closed, as after a faulty batch.
func (inst *Instance) Migrate(ctx context.Context, name []byte, fromVersion int32, value []byte) (out []byte, keep bool, err error) {
	if inst.closed {
		return nil, false, &GuestError{Kind: ErrInstanceClosed, Operator: inst.cfg.Operator, Record: -1}
	}
	fn := inst.guest.ExportedFunction(abi.ExportMigrate)
	if fn == nil {
		return nil, false, &GuestError{Kind: ErrNoMigrate, Operator: inst.cfg.Operator, Record: -1, Func: abi.ExportMigrate,
			Detail: "a state's declared version changed, so its stored values need the new module's " + abi.ExportMigrate}
	}
	inst.batchBuf = append(append(inst.batchBuf[:0], name...), value...)
	ptr, err := inst.copyIn(ctx, inst.batchBuf)
	if err != nil {
		return nil, false, err
	}
	res, err := inst.callRaw(ctx, phaseMigrate, fn, uint64(ptr), uint64(len(name)), uint64(uint32(fromVersion)),
		uint64(ptr)+uint64(len(name)), uint64(len(value)))
	if err != nil {
		return nil, false, inst.fault(ctx, ErrTrap, abi.ExportMigrate, err)
	}
	return inst.migrated(ctx, int64(res))
}

// migrated reads ws_migrate's result: len<<32 | ptr, NOT_FOUND (delete),
// or a failure code.
func (inst *Instance) migrated(ctx context.Context, res int64) ([]byte, bool, error) {
	switch {
	case res == int64(abi.ErrNotFound):
		return nil, false, nil
	case res < 0:
		inst.Close(ctx)
		return nil, false, &GuestError{Kind: ErrTrap, Operator: inst.cfg.Operator, Record: -1, Func: abi.ExportMigrate, Code: abi.Code(res),
			Detail: strings.TrimSuffix("ws_migrate failed: "+inst.cs.lastError, ": ")}
	}
	ptr, n := uint32(res), uint32(res>>32)
	if int64(n) > int64(inst.cfg.MaxValueLen) {
		inst.Close(ctx)
		return nil, false, &GuestError{Kind: ErrABIMisuse, Operator: inst.cfg.Operator, Record: -1, Func: abi.ExportMigrate, Code: abi.ErrTooLarge,
			Detail: fmt.Sprintf("ws_migrate returned a value of %d bytes, over limits.max_value_bytes %d", n, inst.cfg.MaxValueLen)}
	}
	b, ok := inst.guest.Memory().Read(ptr, n)
	if !ok {
		inst.Close(ctx)
		return nil, false, &GuestError{Kind: ErrABIMisuse, Operator: inst.cfg.Operator, Record: -1, Func: abi.ExportMigrate, Code: abi.ErrBadPointer,
			Detail: fmt.Sprintf("ws_migrate returned pointer %d with length %d, outside guest memory", ptr, n)}
	}
	return append([]byte(nil), b...), true, nil
}
