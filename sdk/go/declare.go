package wasmstream

import (
	"strconv"
	"time"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/sdk/go/internal/hostcall"
)

// TTLUpdate says which accesses move a value's expiry.
type TTLUpdate uint8

const (
	// OnCreateAndWrite: the expiry is set when the value is written.
	OnCreateAndWrite TTLUpdate = iota
	// OnReadAndWrite: reads move the expiry too, so a value in use stays.
	OnReadAndWrite
)

// TTLVisibility says whether an expired value can still be read.
type TTLVisibility uint8

const (
	// NeverReturnExpired: an expired value reads as absent.
	NeverReturnExpired TTLVisibility = iota
	// ReturnExpiredIfNotCleaned: an expired value is returned until the
	// host's cleanup removes it. Cheaper for the host; use it only when a
	// stale value is harmless.
	ReturnExpiredIfNotCleaned
)

// TTL is a state's time to live.
type TTL struct {
	// Duration is how long a value lives after its last update; at least
	// one millisecond (the ABI counts milliseconds).
	Duration   time.Duration
	Update     TTLUpdate
	Visibility TTLVisibility
	// EventTime counts the TTL in the records' event time instead of the
	// host's processing time. A redelivered duplicate carries its original
	// event time, so event-time TTLs measure the data, not the outage.
	EventTime bool
}

// StateOptions is what a module declares about one named state.
type StateOptions struct {
	// Version is the layout version of the state's values, 1 when 0. Bump
	// it when the encoding changes; an upgrade then needs a migration.
	Version int32
	// TTL overrides the pipeline config's TTL of the state. nil says
	// nothing: the config decides.
	TTL *TTL
	// NoTTL makes the state never expire, even when the config gives it a
	// TTL. It wins over TTL.
	NoTTL bool
	// Migrate converts a value stored under an older version of this state
	// (fromVersion < Version) when the module replaces one that wrote it
	// (an upgrade, ABI 1.2): return the new encoding, or keep=false to
	// delete the value. An error fails the upgrade, which then leaves the
	// old module running. name is the stored name (for a map state, name
	// "\x00" mapKey). Without Migrate, raising Version makes the host
	// refuse the upgrade before anything is touched.
	Migrate func(name []byte, fromVersion int32, old []byte) (new []byte, keep bool, err error)
}

// declaration is one pending state_declare call.
type declaration struct {
	name    string
	version int32
	ttlMs   int64
	flags   int32
}

// declarations are sent to the host in ws_init, in declaration order.
var declarations []declaration

// migrations are the Migrate functions by state name, for ws_migrate.
var migrations = map[string]func(name []byte, fromVersion int32, old []byte) ([]byte, bool, error){}

// DeclareState declares the version and TTL of the state called name (for
// a MapState, the map's name: every entry expires on its own). Call it at
// package initialisation or from Operator.Init; the SDK hands the
// declarations to the host when Init returns. A later declaration of the
// same name replaces the earlier one. It panics on an invalid name, a
// negative version or a TTL under one millisecond: programming errors.
func DeclareState(name string, o StateOptions) {
	checkStateName("DeclareState", name)
	d := declaration{name: name, version: o.Version}
	if d.version == 0 {
		d.version = 1
	}
	if d.version < 0 {
		panic("wasmstream: DeclareState " + name + ": negative version " + strconv.Itoa(int(d.version)))
	}
	switch {
	case o.NoTTL:
		d.ttlMs = abi.TTLNever
	case o.TTL != nil:
		d.ttlMs, d.flags = ttlArgs(name, *o.TTL)
	}
	if o.Migrate != nil {
		d.flags |= abi.DeclareMigrates
		migrations[name] = o.Migrate
	}
	for i := range declarations {
		if declarations[i].name == name {
			declarations[i] = d
			return
		}
	}
	declarations = append(declarations, d)
}

// ttlArgs turns a TTL into state_declare's ttl_ms and flags.
func ttlArgs(name string, t TTL) (ms int64, flags int32) {
	ms = t.Duration.Milliseconds()
	if ms < 1 {
		panic("wasmstream: DeclareState " + name + ": TTL " + t.Duration.String() + " is under one millisecond")
	}
	if t.Update == OnReadAndWrite {
		flags |= abi.DeclareReadAndWrite
	}
	if t.Visibility == ReturnExpiredIfNotCleaned {
		flags |= abi.DeclareReturnExpired
	}
	if t.EventTime {
		flags |= abi.DeclareEventTime
	}
	return ms, flags
}

// Declare declares the state's version and TTL (see DeclareState) and
// returns s, so a package variable can be declared in one expression.
func (s *ValueState[T]) Declare(o StateOptions) *ValueState[T] {
	DeclareState(s.name, o)
	return s
}

// Declare declares the map's version and TTL (see DeclareState); each
// entry expires on its own. It returns m.
func (m *MapState[K, V]) Declare(o StateOptions) *MapState[K, V] {
	DeclareState(m.name, o)
	return m
}

// sendDeclarations hands every declaration to the host (ws_init only).
func sendDeclarations() abi.Code {
	for _, d := range declarations {
		code := abi.Code(hostcall.StateDeclare([]byte(d.name), d.version, d.ttlMs, d.flags))
		if code != abi.OK {
			Log(LevelError, "wasmstream: the host refused the declaration of state "+strconv.Quote(d.name)+
				": "+codeError(code).Error()+" (a host older than ABI 1.1 does not know state_declare)")
			return abi.ErrGuestInternal
		}
	}
	return abi.OK
}
