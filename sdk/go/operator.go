package wasmstream

// Operator is the user code of a wasmstream module.
//
// The host calls Init once per instance, then Process for every record, one
// record at a time and never concurrently.
type Operator interface {
	// Init receives the operator's config bytes from the pipeline config
	// (nil when there are none). An error fails the instance with
	// GUEST_CONFIG and is logged.
	Init(config []byte) error
	// Process handles one record. State and Emit calls inside it address
	// r's key. An error sends the record to the dead-letter subject: the
	// host drops the state writes and emits of the failed attempt and runs
	// the other records of the batch again without it, so Process must not
	// rely on side effects outside host state.
	Process(r *Record) error
}

// registered is the operator of this module, set once by Register.
var registered Operator

// Register makes op the operator of this module. Call it exactly once, from
// an init function of the main package; it panics on nil or on a second
// call because either is a programming error that no host can work around.
func Register(op Operator) {
	if op == nil {
		panic("wasmstream: Register(nil): pass the operator value")
	}
	if registered != nil {
		panic("wasmstream: Register called twice: a module has exactly one operator")
	}
	registered = op
}
