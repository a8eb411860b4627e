package host

import (
	"bytes"
	"context"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmstream/wasmstream/abi"
)

// StateDeclaration is what a module declared about one named state with
// state_declare during ws_init (ABI.md §6.10).
type StateDeclaration struct {
	Name    string
	Version int32
	// TTLMillis: abi.TTLUnset (0) says nothing, abi.TTLNever (-1) never
	// expires, > 0 is the time to live in milliseconds.
	TTLMillis int64
	Flags     uint32 // abi.Declare* bits
}

// Declarations returns what ws_init declared, one entry per name in the
// order of first declaration (a later declaration of a name replaced it).
func (inst *Instance) Declarations() []StateDeclaration {
	return append([]StateDeclaration(nil), inst.declared...)
}

// stateDeclare: (name_ptr, name_len, version i32, ttl_ms i64, flags i32) -> OK | BAD_ARGUMENT.
func stateDeclare(ctx context.Context, mod api.Module, stack []uint64) {
	cs := stateOf(ctx)
	if cs.phase == phaseAlloc {
		cs.abort(abi.ErrReentrant, abi.FuncStateDeclare, "called from inside "+abi.ExportAlloc)
	}
	name, code := cs.name(mod, abi.FuncStateDeclare, stack[0], stack[1], abi.MaxStateNameLen)
	if code != abi.OK {
		result(stack, int64(code))
		return
	}
	d := StateDeclaration{Name: string(name), Version: api.DecodeI32(stack[2]),
		TTLMillis: int64(stack[3]), Flags: api.DecodeU32(stack[4])}
	if cs.phase != phaseInit || !validDeclaration(name, d) {
		result(stack, int64(abi.ErrBadArgument))
		return
	}
	cs.inst.declare(d)
	result(stack, int64(abi.OK))
}

// validDeclaration checks the arguments ABI.md §6.10 allows.
func validDeclaration(name []byte, d StateDeclaration) bool {
	return bytes.IndexByte(name, 0) < 0 &&
		d.Version >= 1 &&
		d.TTLMillis >= abi.TTLNever &&
		d.Flags&^abi.DeclareFlagsMask == 0
}

// declare records d, replacing an earlier declaration of its name.
func (inst *Instance) declare(d StateDeclaration) {
	for i := range inst.declared {
		if inst.declared[i].Name == d.Name {
			inst.declared[i] = d
			return
		}
	}
	inst.declared = append(inst.declared, d)
}
