//go:build !wasip1

package sdktest

import (
	"bytes"
	"time"

	"github.com/wasmstream/wasmstream/abi"
	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

// Declaration is what the operator declared about one named state during
// Init (wasmstream.DeclareState), as the host received it.
type Declaration struct {
	Name    string
	Version int32
	// TTL is nil when the module said nothing about it (the pipeline
	// config decides) or declared NoTTL.
	TTL   *wasmstream.TTL
	NoTTL bool
}

// declarations is the harness's record of Init's state_declare calls.
type declarations struct {
	list   []Declaration
	byName map[string]int // index into list
}

// ttl returns the TTL of the state an entry name belongs to: a map entry
// (name 0x00 mapKey) follows its map's declaration.
func (d *declarations) ttl(entry []byte) *wasmstream.TTL {
	if i := bytes.IndexByte(entry, 0); i >= 0 {
		entry = entry[:i]
	}
	if i, ok := d.byName[string(entry)]; ok {
		return d.list[i].TTL
	}
	return nil
}

func (d *declarations) add(decl Declaration) {
	if d.byName == nil {
		d.byName = map[string]int{}
	}
	if i, ok := d.byName[decl.Name]; ok {
		d.list[i] = decl
		return
	}
	d.byName[decl.Name] = len(d.list)
	d.list = append(d.list, decl)
}

// StateDeclare records a declaration, as the host does (ABI.md §6.10):
// only in Init, with the same argument checks.
func (f *fakeHost) StateDeclare(name []byte, version int32, ttlMillis int64, flags int32) int32 {
	if !f.init || !validStateName(name) || bytes.IndexByte(name, 0) >= 0 ||
		version < 1 || ttlMillis < abi.TTLNever || flags&^abi.DeclareFlagsMask != 0 {
		return int32(abi.ErrBadArgument)
	}
	d := Declaration{Name: string(name), Version: version, NoTTL: ttlMillis == abi.TTLNever}
	if ttlMillis > 0 {
		d.TTL = &wasmstream.TTL{
			Duration:   time.Duration(ttlMillis) * time.Millisecond,
			Update:     wasmstream.TTLUpdate(flags & abi.DeclareReadAndWrite),
			Visibility: wasmstream.TTLVisibility((flags & abi.DeclareReturnExpired) >> 1),
			EventTime:  flags&abi.DeclareEventTime != 0,
		}
	}
	f.declared.add(d)
	return int32(abi.OK)
}

// ttlNow is "now" for a TTL: the record's event time for event-time TTLs
// (the processing time when the record has none), else processing time.
func (f *fakeHost) ttlNow(t *wasmstream.TTL) int64 {
	if t.EventTime && !f.records[f.idx].EventTime.IsZero() {
		return unixNano(f.records[f.idx].EventTime)
	}
	return f.now
}

// expiryFor returns the expiry of a value of entry written now (0: none).
func (f *fakeHost) expiryFor(entry []byte) int64 {
	t := f.declared.ttl(entry)
	if t == nil {
		return 0
	}
	return f.ttlNow(t) + t.Duration.Nanoseconds()
}

// visible applies the TTL to a value read from the store: an expired value
// is absent under NeverReturnExpired (the harness never cleans up, so
// ReturnExpiredIfNotCleaned always returns it), and a live one read under
// OnReadAndWrite gets a new expiry.
func (f *fakeHost) visible(id stateID, value []byte, expiry int64) bool {
	t := f.declared.ttl([]byte(id.name))
	if t == nil || expiry == 0 {
		return true
	}
	if expiry <= f.ttlNow(t) {
		return t.Visibility == wasmstream.ReturnExpiredIfNotCleaned
	}
	if t.Update == wasmstream.OnReadAndWrite {
		f.state.put(id, value, f.ttlNow(t)+t.Duration.Nanoseconds())
	}
	return true
}

// Declarations returns what the operator declared in Init, in order.
func (h *Harness) Declarations() []Declaration {
	return append([]Declaration(nil), h.declared.list...)
}
