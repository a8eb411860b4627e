package host

import (
	"context"
	"unicode/utf16"

	"github.com/hashicorp/go-hclog"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmstream/wasmstream/abi"
)

// hostSignatures are the host functions of ABI v1 revision 1.3 (see abi/ABI.md).
var hostSignatures = map[string]signature{
	abi.FuncRecordNext:     {nil, []api.ValueType{i32}},
	abi.FuncStateGet:       {[]api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}},
	abi.FuncStatePut:       {[]api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}},
	abi.FuncStateDelete:    {[]api.ValueType{i32, i32}, []api.ValueType{i32}},
	abi.FuncEmit:           {[]api.ValueType{i32, i32, i32, i32, i32, i32, i32, i32}, []api.ValueType{i32}},
	abi.FuncLog:            {[]api.ValueType{i32, i32, i32}, nil},
	abi.FuncEventTime:      {nil, []api.ValueType{i64}},
	abi.FuncProcessingTime: {nil, []api.ValueType{i64}},
	abi.FuncStateDeclare:   {[]api.ValueType{i32, i32, i32, i64, i32}, []api.ValueType{i32}},
	abi.FuncOutputIndex:    {[]api.ValueType{i32, i32}, []api.ValueType{i32}},
	abi.FuncEmitLimits:     {nil, []api.ValueType{i64}},
	abi.FuncEmitBatch:      {[]api.ValueType{i32, i32}, []api.ValueType{i32}},
}

var hostFuncs = map[string]api.GoModuleFunc{
	abi.FuncRecordNext:     recordNext,
	abi.FuncStateGet:       stateGet,
	abi.FuncStatePut:       statePut,
	abi.FuncStateDelete:    stateDelete,
	abi.FuncEmit:           emit,
	abi.FuncLog:            logLine,
	abi.FuncEventTime:      eventTime,
	abi.FuncProcessingTime: processingTime,
	abi.FuncStateDeclare:   stateDeclare,
	abi.FuncOutputIndex:    outputIndex,
	abi.FuncEmitLimits:     emitLimits,
	abi.FuncEmitBatch:      emitBatch,
}

// hostModule builds the "wasmstream" import module. Functions are
// GoModuleFunc: reflection-based host functions cost an order of magnitude more.
func hostModule(rt wazero.Runtime) wazero.HostModuleBuilder {
	b := rt.NewHostModuleBuilder(abi.ImportModule)
	for _, name := range sortedKeys(hostSignatures) {
		sig := hostSignatures[name]
		b.NewFunctionBuilder().WithGoModuleFunction(hostFuncs[name], sig.params, sig.results).Export(name)
	}
	return b
}

func result(stack []uint64, c int64) { stack[0] = api.EncodeI32(int32(c)) }

// recordNext: () -> i32. 1 and the next record becomes current, or 0 at the end.
func recordNext(ctx context.Context, _ api.Module, stack []uint64) {
	cs := stateOf(ctx)
	if cs.phase != phaseProcess {
		cs.requireRecord(abi.FuncRecordNext) // aborts with the right code
	}
	if cs.cursor >= len(cs.records)-1 {
		cs.cursor = len(cs.records)
		result(stack, 0)
		return
	}
	cs.cursor++
	cs.emitted = 0
	if err := cs.inst.state.SetCurrentRecord(cs.records[cs.cursor].Key, cs.records[cs.cursor].EventTime); err != nil {
		cs.hostFailure(err)
	}
	result(stack, 1)
}

// stateGet: (name_ptr, name_len, out_ptr, out_cap) -> length | NOT_FOUND | BAD_ARGUMENT.
func stateGet(ctx context.Context, mod api.Module, stack []uint64) {
	cs := stateOf(ctx)
	cs.requireRecord(abi.FuncStateGet)
	name, code := cs.name(mod, abi.FuncStateGet, stack[0], stack[1], abi.MaxStateNameLen)
	if code != abi.OK {
		result(stack, int64(code))
		return
	}
	out := cs.read(mod, abi.FuncStateGet, stack[2], stack[3])
	val, found, err := cs.inst.state.Get(name)
	if err != nil {
		cs.hostFailure(err)
	}
	if !found {
		result(stack, int64(abi.ErrNotFound))
		return
	}
	if len(val) <= len(out) {
		copy(out, val)
	}
	result(stack, int64(len(val)))
}

// statePut: (name_ptr, name_len, val_ptr, val_len) -> OK | BAD_ARGUMENT | TOO_LARGE.
func statePut(ctx context.Context, mod api.Module, stack []uint64) {
	cs := stateOf(ctx)
	cs.requireRecord(abi.FuncStatePut)
	name, code := cs.name(mod, abi.FuncStatePut, stack[0], stack[1], abi.MaxStateNameLen)
	if code != abi.OK {
		result(stack, int64(code))
		return
	}
	if int64(uint32(stack[3])) > int64(cs.inst.cfg.MaxValueLen) {
		result(stack, int64(abi.ErrTooLarge))
		return
	}
	val := cs.read(mod, abi.FuncStatePut, stack[2], stack[3])
	if err := cs.inst.state.Put(name, val); err != nil {
		cs.hostFailure(err)
	}
	result(stack, 0)
}

// stateDelete: (name_ptr, name_len) -> OK | BAD_ARGUMENT.
func stateDelete(ctx context.Context, mod api.Module, stack []uint64) {
	cs := stateOf(ctx)
	cs.requireRecord(abi.FuncStateDelete)
	name, code := cs.name(mod, abi.FuncStateDelete, stack[0], stack[1], abi.MaxStateNameLen)
	if code != abi.OK {
		result(stack, int64(code))
		return
	}
	if err := cs.inst.state.Delete(name); err != nil {
		cs.hostFailure(err)
	}
	result(stack, 0)
}

// emit: (out_ptr, out_len, key_ptr, key_len, val_ptr, val_len, hdr_ptr, hdr_len)
// -> OK | BAD_ARGUMENT | UNKNOWN_OUTPUT | TOO_LARGE | QUOTA_EXCEEDED.
func emit(ctx context.Context, mod api.Module, stack []uint64) {
	cs := stateOf(ctx)
	cs.requireRecord(abi.FuncEmit)
	result(stack, int64(cs.emit(mod, stack)))
}

func (cs *callState) emit(mod api.Module, stack []uint64) abi.Code {
	cfg := &cs.inst.cfg
	name, code := cs.name(mod, abi.FuncEmit, stack[0], stack[1], abi.MaxOutputNameLen)
	if code != abi.OK {
		return code
	}
	out, ok := cs.inst.output(name)
	if !ok {
		return abi.ErrUnknownOutput
	}
	limit := int64(cfg.MaxValueLen)
	if int64(uint32(stack[3])) > limit || int64(uint32(stack[5])) > limit || int64(uint32(stack[7])) > limit {
		return abi.ErrTooLarge
	}
	key := cs.read(mod, abi.FuncEmit, stack[2], stack[3])
	val := cs.read(mod, abi.FuncEmit, stack[4], stack[5])
	hdr := cs.read(mod, abi.FuncEmit, stack[6], stack[7])
	if abi.ValidateHeaders(hdr) != nil {
		return abi.ErrBadArgument
	}
	if cs.emitted >= cfg.MaxEmitsPerRecord {
		return abi.ErrQuotaExceeded
	}
	cs.emitted++
	cs.inst.outputs.add(out, cs.cursor, key, val, hdr)
	return abi.OK
}

// maxLogLinesPerCall bounds how much one guest call can write to the host's log.
const maxLogLinesPerCall = 1000

// maxLogLineLen truncates guest log lines.
const maxLogLineLen = 4096

// logLine: (level, msg_ptr, msg_len) -> (). Unknown levels log at error.
func logLine(ctx context.Context, mod api.Module, stack []uint64) {
	cs := stateOf(ctx)
	if cs.phase == phaseAlloc {
		cs.abort(abi.ErrReentrant, abi.FuncLog, "called from inside "+abi.ExportAlloc)
	}
	length := uint32(stack[2])
	msg := cs.read(mod, abi.FuncLog, stack[1], uint64(length))
	if cs.logs >= maxLogLinesPerCall {
		cs.dropped++
		return
	}
	cs.logs++
	if len(msg) > maxLogLineLen {
		msg = msg[:maxLogLineLen]
	}
	args := []any{"guest", true}
	if cs.phase == phaseProcess && cs.cursor >= 0 && cs.cursor < len(cs.records) {
		args = append(args, "record", cs.cursor)
	}
	level := guestLevel(int32(stack[0]))
	if level == hclog.Error && (cs.phase == phaseProcess || cs.phase == phaseMigrate) {
		cs.lastError, cs.lastErrorRec = string(msg), cs.cursor
	}
	cs.inst.logger.Log(level, string(msg), args...)
}

func guestLevel(l int32) hclog.Level {
	switch l {
	case abi.LogTrace:
		return hclog.Trace
	case abi.LogDebug:
		return hclog.Debug
	case abi.LogInfo:
		return hclog.Info
	case abi.LogWarn:
		return hclog.Warn
	}
	return hclog.Error
}

// eventTime: () -> i64 Unix nanoseconds of the current record.
func eventTime(ctx context.Context, _ api.Module, stack []uint64) {
	cs := stateOf(ctx)
	cs.requireRecord(abi.FuncEventTime)
	stack[0] = api.EncodeI64(cs.records[cs.cursor].EventTime)
}

// processingTime: () -> i64 Unix nanoseconds of the host clock at call start.
func processingTime(ctx context.Context, _ api.Module, stack []uint64) {
	cs := stateOf(ctx)
	if cs.phase == phaseAlloc {
		cs.abort(abi.ErrReentrant, abi.FuncProcessingTime, "called from inside "+abi.ExportAlloc)
	}
	stack[0] = api.EncodeI64(cs.procNs)
}

var envAbortSignature = signature{[]api.ValueType{i32, i32, i32, i32}, nil}

// envModule provides env.abort, which AssemblyScript imports by default. An
// abort is a trap with the guest's message.
func envModule(rt wazero.Runtime) wazero.HostModuleBuilder {
	return rt.NewHostModuleBuilder("env").NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(envAbort), envAbortSignature.params, envAbortSignature.results).
		Export("abort")
}

type guestAbort struct{ msg string }

func (g *guestAbort) Error() string { return "abort: " + g.msg }

func envAbort(ctx context.Context, mod api.Module, stack []uint64) {
	msg := asString(mod, uint32(stack[0])) + " at " + asString(mod, uint32(stack[1])) +
		":" + itoa(int64(int32(stack[2]))) + ":" + itoa(int64(int32(stack[3])))
	panic(&guestAbort{msg: msg})
}

// asString decodes an AssemblyScript string (UTF-16LE, byte length at ptr-4);
// best effort, since it only feeds an error message.
func asString(mod api.Module, ptr uint32) string {
	if ptr < 4 {
		return "?"
	}
	n, ok := mod.Memory().ReadUint32Le(ptr - 4)
	if !ok || n > 1024 {
		return "?"
	}
	b, ok := mod.Memory().Read(ptr, n)
	if !ok {
		return "?"
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u))
}
