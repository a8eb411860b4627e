package host

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmstream/wasmstream/abi"
)

// KeyedState is the host-owned state an instance reads and writes. The host
// sets the current key at every record_next, so a guest can only ever reach
// the state of the record it is processing. state.Backend implements it.
type KeyedState interface {
	// SetCurrentRecord makes key current; eventTimeNanos is the record's
	// event time, the clock of state whose TTL counts in event time.
	SetCurrentRecord(key []byte, eventTimeNanos int64) error
	Get(name []byte) (value []byte, found bool, err error)
	Put(name, value []byte) error
	Delete(name []byte) error
	BeginBatch()
	CommitBatch()
	RollbackBatch()
}

// batchPrefetcher is the optional fast path of a KeyedState (state.Backend
// has it): PrefetchBatch warms the state of a batch's keys before the guest
// runs. It changes no behaviour, only the cost of the state calls.
type batchPrefetcher interface {
	PrefetchBatch(keys [][]byte)
}

// Record is one input record handed to the guest.
type Record struct {
	Key       []byte
	Value     []byte
	Headers   []byte // abi-encoded header list
	EventTime int64  // Unix nanoseconds
	Input     uint32
}

// InstanceConfig configures one instance. Zero fields take the defaults.
type InstanceConfig struct {
	Operator          string
	Config            []byte   // handed to ws_init
	Outputs           []string // output names the guest may emit to
	BatchTimeout      time.Duration
	MaxValueLen       int
	MaxEmitsPerRecord int
	Logger            hclog.Logger
	Clock             func() time.Time // processing time; default time.Now
}

// Defaults for InstanceConfig.
const (
	DefaultBatchTimeout      = 5 * time.Second
	DefaultMaxEmitsPerRecord = 64
)

func (c InstanceConfig) withDefaults() InstanceConfig {
	if c.BatchTimeout <= 0 {
		c.BatchTimeout = DefaultBatchTimeout
	}
	if c.MaxValueLen <= 0 {
		c.MaxValueLen = abi.DefaultMaxValueLen
	}
	if c.MaxEmitsPerRecord <= 0 {
		c.MaxEmitsPerRecord = DefaultMaxEmitsPerRecord
	}
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	return c
}

// Instance is one live guest. It is not safe for concurrent use: one task
// goroutine drives it. After any fault it is closed and must be replaced.
type Instance struct {
	mod         *Module
	cfg         InstanceConfig
	logger      hclog.Logger
	guest       api.Module
	alloc       api.Function
	process     api.Function
	state       KeyedState
	prefetcher  batchPrefetcher // state's fast path; nil when it has none
	batchKeys   [][]byte        // the keys of the running batch, for prefetcher
	outputIndex map[string]int
	lastOutput  int // index of the output the last emit named; -1: none
	cs          callState
	outputs     outputBuffer
	outBuf      []Output // returned by Process; reused by the next call
	batchBuf    []byte
	guestPtr    uint32 // buffer from ws_alloc, valid until the next ws_alloc
	guestCap    uint32
	stderr      *tailBuffer
	declared    []StateDeclaration // state_declare calls of ws_init
	closed      bool
}

// Instantiate creates an instance, runs the WASI initialiser and ws_init
// with cfg.Config. Errors are *GuestError wrapping ErrInit, ErrTrap,
// ErrTimeout, ErrMemoryLimit or ErrABIMisuse.
func (m *Module) Instantiate(ctx context.Context, cfg InstanceConfig, st KeyedState) (*Instance, error) {
	cfg = cfg.withDefaults()
	inst := &Instance{mod: m, cfg: cfg, logger: cfg.Logger, state: st, outputIndex: map[string]int{}, lastOutput: -1, stderr: newTailBuffer(2048)}
	for i, name := range cfg.Outputs {
		inst.outputIndex[name] = i
	}
	inst.cs = callState{inst: inst, cursor: -1}
	inst.prefetcher, _ = st.(batchPrefetcher)
	ictx, cancel := context.WithTimeout(ctx, cfg.BatchTimeout)
	defer cancel()
	guest, err := m.instantiate(ictx, inst.stderr)
	if err != nil {
		return nil, err
	}
	inst.guest = guest
	inst.alloc = guest.ExportedFunction(abi.ExportAlloc)
	inst.process = guest.ExportedFunction(abi.ExportProcess)
	if err := inst.init(ctx); err != nil {
		inst.Close(ctx)
		return nil, err
	}
	return inst, nil
}

func (inst *Instance) init(ctx context.Context) error {
	ptr, err := inst.copyIn(ctx, inst.cfg.Config)
	if err != nil {
		return err
	}
	rc, err := inst.call(ctx, phaseInit, inst.guest.ExportedFunction(abi.ExportInit), uint64(ptr), uint64(len(inst.cfg.Config)))
	if err != nil {
		return inst.fault(ctx, ErrInit, abi.ExportInit, err)
	}
	if rc != abi.OK {
		return &GuestError{Kind: ErrInit, Operator: inst.cfg.Operator, Record: -1, Func: abi.ExportInit, Code: rc,
			Detail: "the operator rejected its config; see its log lines above and the operator's config in the pipeline file"}
	}
	return nil
}

// Process runs one batch. On success the batch's state writes are committed
// and the outputs returned (valid until the next call). On failure all of the
// batch's state writes are rolled back and the error is a *GuestError whose
// Record names the record being processed; for every kind except
// ErrRecordFailed and ErrOutputRefused the instance is closed and must be
// replaced.
func (inst *Instance) Process(ctx context.Context, recs []Record) ([]Output, error) {
	return inst.ProcessChecked(ctx, recs, nil)
}

// OutputCheck vets the outputs of a batch the guest processed without
// error, before the batch's state writes are committed. It returns the
// index in the batch of a record with an output the caller cannot deliver,
// and why; or -1 when every output can be delivered. It may modify the
// outputs' Record fields (their Value, Key and Headers it must not).
type OutputCheck func(outs []Output) (record int, reason string)

// ProcessChecked is Process with check run on the outputs before the
// commit (nil: none). A record it refuses fails the batch with a
// *GuestError of kind ErrOutputRefused naming that record: the batch's
// state writes are rolled back, as for a record the guest rejected, and
// the instance is kept.
func (inst *Instance) ProcessChecked(ctx context.Context, recs []Record, check OutputCheck) ([]Output, error) {
	if inst.closed {
		return nil, &GuestError{Kind: ErrInstanceClosed, Operator: inst.cfg.Operator, Record: -1}
	}
	inst.outputs.reset()
	inst.batchBuf = encodeBatch(inst.batchBuf[:0], recs)
	ptr, err := inst.copyIn(ctx, inst.batchBuf)
	if err != nil {
		return nil, err
	}
	inst.cs.records = recs
	inst.state.BeginBatch()
	inst.prefetch(recs)
	rc, err := inst.call(ctx, phaseProcess, inst.process, uint64(ptr), uint64(len(inst.batchBuf)))
	record := inst.cs.cursor
	if err != nil {
		inst.state.RollbackBatch()
		err = inst.fault(ctx, ErrTrap, abi.ExportProcess, err)
		inst.cs.records = nil
		return nil, err
	}
	inst.cs.records = nil
	if rc == abi.OK && record < len(recs)-1 {
		inst.state.RollbackBatch()
		inst.Close(ctx)
		return nil, &GuestError{Kind: ErrABIMisuse, Operator: inst.cfg.Operator, Record: -1, Func: abi.ExportProcess, Code: abi.ErrNoRecord,
			Detail: "ws_process returned 0 after visiting " + itoa(int64(record+1)) + " of " + itoa(int64(len(recs))) + " records; it must call record_next until it returns 0"}
	}
	if rc != abi.OK {
		inst.state.RollbackBatch()
		return nil, inst.rejected(ctx, rc, record, len(recs))
	}
	inst.outBuf = inst.outputs.appendTo(inst.outBuf[:0])
	if check != nil {
		if record, reason := check(inst.outBuf); record >= 0 {
			inst.state.RollbackBatch()
			return nil, &GuestError{Kind: ErrOutputRefused, Operator: inst.cfg.Operator, Record: record, Detail: reason}
		}
	}
	inst.state.CommitBatch()
	return inst.outBuf, nil
}

// rejected turns a negative ws_process result into a GuestError. A record
// failure keeps the instance (the guest unwound normally); anything else
// discards it.
func (inst *Instance) rejected(ctx context.Context, rc abi.Code, record, n int) error {
	if record >= n {
		record = n - 1
	}
	e := &GuestError{Kind: ErrRecordFailed, Operator: inst.cfg.Operator, Record: record, Func: abi.ExportProcess, Code: rc}
	if inst.cs.lastErrorRec == record && record >= 0 {
		e.Detail = inst.cs.lastError
	}
	if rc != abi.ErrGuestRecord {
		e.Kind = ErrTrap
		e.Detail = strings.TrimPrefix(e.Detail+"; ws_process returned an error code", "; ")
		inst.Close(ctx)
	}
	return e
}

// prefetch hands the batch's keys to the state's fast path, if it has one.
func (inst *Instance) prefetch(recs []Record) {
	if inst.prefetcher == nil {
		return
	}
	keys := inst.batchKeys[:0]
	for i := range recs {
		keys = append(keys, recs[i].Key)
	}
	inst.prefetcher.PrefetchBatch(keys)
	clear(keys) // keep no reference to the caller's records
	inst.batchKeys = keys[:0]
}

func encodeBatch(buf []byte, recs []Record) []byte {
	buf = abi.AppendBatchHeader(buf, uint32(len(recs)))
	for i := range recs {
		r := &recs[i]
		buf = abi.AppendRecord(buf, &abi.Record{EventTime: r.EventTime, Input: r.Input, Key: r.Key, Value: r.Value, Headers: r.Headers})
	}
	return buf
}

// copyIn writes b into the guest's buffer, growing it through ws_alloc only
// when b does not fit the one it has.
func (inst *Instance) copyIn(ctx context.Context, b []byte) (uint32, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if uint32(len(b)) > inst.guestCap {
		if err := inst.grow(ctx, uint32(len(b))); err != nil {
			return 0, err
		}
	}
	if !inst.guest.Memory().Write(inst.guestPtr, b) {
		inst.Close(ctx)
		return 0, &GuestError{Kind: ErrABIMisuse, Operator: inst.cfg.Operator, Record: -1, Code: abi.ErrBadPointer, Func: abi.ExportAlloc,
			Detail: "buffer returned by ws_alloc no longer lies inside guest memory"}
	}
	return inst.guestPtr, nil
}

func (inst *Instance) grow(ctx context.Context, size uint32) error {
	want := size + size/4 // headroom so slowly growing batches do not re-allocate every time
	rc, err := inst.call(ctx, phaseAlloc, inst.alloc, uint64(want))
	if err != nil {
		return inst.fault(ctx, ErrTrap, abi.ExportAlloc, err)
	}
	ptr := uint32(rc)
	if _, ok := inst.guest.Memory().Read(ptr, want); !ok || ptr == 0 {
		inst.Close(ctx)
		return &GuestError{Kind: ErrABIMisuse, Operator: inst.cfg.Operator, Record: -1, Code: abi.ErrBadPointer, Func: abi.ExportAlloc,
			Detail: "ws_alloc(" + itoa(int64(want)) + ") returned " + itoa(int64(int32(ptr))) + ", which is not a buffer inside guest memory"}
	}
	inst.guestPtr, inst.guestCap = ptr, want
	return nil
}

// call runs one guest export under the batch deadline with the call state set.
func (inst *Instance) call(ctx context.Context, ph phase, fn api.Function, params ...uint64) (abi.Code, error) {
	res, err := inst.callRaw(ctx, ph, fn, params...)
	return abi.Code(int32(res)), err
}

// callRaw calls fn and returns its first result as it is.
func (inst *Instance) callRaw(ctx context.Context, ph phase, fn api.Function, params ...uint64) (uint64, error) {
	cs := &inst.cs
	cs.phase, cs.cursor, cs.emitted, cs.logs, cs.dropped, cs.fault = ph, -1, 0, 0, 0, nil
	cs.lastError, cs.lastErrorRec = "", -1
	cs.procNs = inst.cfg.Clock().UnixNano()
	ctx, cancel := context.WithTimeout(ctx, inst.cfg.BatchTimeout)
	defer cancel()
	res, err := fn.Call(&callContext{Context: ctx, cs: cs}, params...)
	cs.phase = phaseIdle
	if cs.dropped > 0 {
		inst.logger.Warn("guest log lines dropped", "dropped", cs.dropped, "limit_per_call", maxLogLinesPerCall)
	}
	if err == nil && cs.fault != nil {
		err = cs.fault // a host function failed but the guest swallowed the panic: impossible in wasm, defensive
	}
	if err != nil {
		return 0, err
	}
	return res[0], nil
}

// fault classifies a failed guest call, closes the instance and returns the
// typed error.
func (inst *Instance) fault(ctx context.Context, kind error, fn string, err error) error {
	e := &GuestError{Kind: kind, Operator: inst.cfg.Operator, Record: inst.cs.cursor, Func: fn, Cause: err, Detail: err.Error()}
	if fn != abi.ExportProcess || e.Record >= len(inst.cs.records) {
		e.Record = -1 // no record was current
	}
	var m *misuse
	var hostErr error
	switch {
	case errors.As(err, &m):
		e.Kind, e.Code, e.Func, e.Detail = ErrABIMisuse, m.code, m.fn, m.msg
	case inst.cs.fault != nil:
		hostErr = inst.cs.fault // storage or other host failure: not the guest's fault
	case errors.Is(err, context.DeadlineExceeded):
		e.Kind, e.Detail = ErrTimeout, "stopped after "+inst.cfg.BatchTimeout.String()+" (limits.batch_timeout)"
	case inst.memoryExhausted():
		e.Kind, e.Detail = ErrMemoryLimit, inst.memoryDetail()
	}
	if kind == ErrInit && e.Kind == ErrTrap {
		e.Kind = ErrInit
	}
	if tail := inst.stderr.String(); tail != "" && e.Kind != ErrABIMisuse {
		e.Detail += "; guest stderr: " + tail
	}
	inst.Close(ctx)
	if hostErr != nil {
		return hostErr
	}
	return e
}

// memoryExhausted: a guest that fails with its memory within 1/16 of the
// limit is taken to have failed for lack of memory (memory.grow returns -1
// at the limit and guests turn that into a trap of their own).
func (inst *Instance) memoryExhausted() bool {
	limit := uint64(inst.mod.rt.MemoryLimitPages()) * 65536
	size := uint64(inst.guest.Memory().Size())
	return size+limit/16 >= limit
}

func (inst *Instance) memoryDetail() string {
	return "memory at " + itoa(int64(inst.guest.Memory().Size()/65536)) + " of " + itoa(int64(inst.mod.rt.MemoryLimitPages())) +
		" pages (limits.memory_pages)"
}

// MemoryPages returns the guest's current linear memory size in pages.
func (inst *Instance) MemoryPages() uint32 {
	if inst.closed {
		return 0
	}
	return inst.guest.Memory().Size() / 65536
}

// Closed reports whether the instance was discarded.
func (inst *Instance) Closed() bool { return inst.closed }

// Close discards the instance. Safe to call more than once.
func (inst *Instance) Close(ctx context.Context) {
	if inst.closed {
		return
	}
	inst.closed = true
	_ = inst.mod.rt.guests.close(ctx, inst.guest)
}
