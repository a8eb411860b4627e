package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/exchange"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/natsio"
)

// Exec runs one operator of a pipeline on records its caller hands it, in
// this process and without NATS (`wasmstream exec`). It is the pipeline's
// own machinery, not a copy: the operator's tasks with their key-group
// ranges and instances, the key block's extraction, batches of the
// operator's size under the failure policy, TTLs and sweeps, the sinks'
// message ids and size checks, dead letters with their reasons. What
// differs is where effects go: what a pipeline would publish (outputs and
// dead letters) is collected for Messages, a transactional output at once
// rather than after a checkpoint, and the state stays in the caller's store
// (Finish commits it). Exec is not safe for concurrent use.
type Exec struct {
	p       *Pipeline
	op      *operator
	src     *source // the input the records arrive on
	input   uint32  // its index among the operator's inputs
	subject string  // the subject records arrive on
	seq     uint64  // the last sequence handed to Process
}

// ExecOptions configure OpenExec. Zero fields take the defaults.
type ExecOptions struct {
	Logger hclog.Logger // default: none
	Engine host.Engine  // wazero's engine, default the compiler
	// Clock is processing time, as Options.Clock (default time.Now).
	Clock func() time.Time
	// Subject is the subject the records arrive on, which a subject_token
	// key reads; default the subject filter of the operator's first input.
	Subject string
	// WorkDir holds the compilation cache; required. The pipeline's data
	// dir is never touched.
	WorkDir string
}

// ExecRecord is one input record.
type ExecRecord struct {
	Data   []byte
	Header nats.Header // may be nil
	Time   time.Time   // event time (a pipeline takes JetStream's timestamp)
}

// ExecMessage is what a pipeline would have published for a record.
type ExecMessage struct {
	// Sequence is the input record's position among all records handed to
	// Process, from 1: its stream sequence had the records been published
	// to an empty stream.
	Sequence uint64
	// Output and Sink are the guest output and its sink; both empty for a
	// dead letter.
	Output, Sink string
	Msg          natsio.OutMessage
}

// DeadLetter reports whether m is a dead letter.
func (m ExecMessage) DeadLetter() bool { return m.Output == "" }

// Reason is a dead letter's reason (its Wasmstream-Error header).
func (m ExecMessage) Reason() string { return m.Msg.Header.Get(HeaderError) }

// ExecStats count what an Exec did.
type ExecStats struct {
	Records, Processed, Emitted, DeadLettered, InstanceRestarts uint64
}

// execCollector takes, in an Exec, what a pipeline publishes.
type execCollector struct {
	maxPayload int64
	outputs    []string // guest output names (operator.outputs)
	sinks      []string // their sinks' names
	msgs       []ExecMessage
}

// execOrigin is what a published message came from: an input record's
// sequence and the guest output's index (operator.outputs), -1 for a dead
// letter. Only an Exec's collector reads it.
type execOrigin struct {
	seq    uint64
	output int
}

// deliver publishes msg to the sink, or hands it to the exec collector.
// The sink takes msg.Header over (OwnHeader): each caller builds that map
// for this one message (prepareOutputs, deadLetter) and drops it after.
func (p *Pipeline) deliver(ctx context.Context, msg natsio.OutMessage, from execOrigin) error {
	if p.exec == nil {
		msg.OwnHeader = true
		return p.sink.Publish(ctx, msg)
	}
	m := ExecMessage{Sequence: from.seq, Msg: msg}
	if from.output >= 0 {
		m.Output, m.Sink = p.exec.outputs[from.output], p.exec.sinks[from.output]
	}
	p.exec.msgs = append(p.exec.msgs, m)
	return nil
}

// maxPayload is the limit an output or dead letter must fit: the server's,
// or in an Exec the one its config gives the embedded server.
func (p *Pipeline) maxPayload() int64 {
	if p.exec != nil {
		return p.exec.maxPayload
	}
	return p.conn.MaxPayload()
}

// HeaderKey carries an output's key (the key the guest emitted it with), to a sink as through an
// exchange: one name, defined by the exchange format.
const HeaderKey = exchange.HeaderKey

// MaxPayload is the limit an input record, an output or a dead letter must
// fit (the embedded server's max_payload of the config, else the server's
// default): a pipeline could not receive or publish a larger one.
func (e *Exec) MaxPayload() int64 { return e.p.exec.maxPayload }

// OpenExec compiles operator name of cfg and starts its tasks on store.
// Close it when done.
func OpenExec(ctx context.Context, cfg *config.Pipeline, name string, store *state.Store, opts ExecOptions) (_ *Exec, err error) {
	oc := cfg.Operator(name)
	if oc == nil {
		return nil, fmt.Errorf("pipeline %q has no operator %q; name one of its operator blocks", cfg.Name, name)
	}
	if err := operatorRunnable(oc, "by exec, which feeds one operator records of its own; run the pipeline with wasmstream run"); err != nil {
		return nil, err
	}
	if opts.WorkDir == "" {
		return nil, fmt.Errorf("operator %q: exec needs a work dir for its compilation cache", name)
	}
	run := *cfg
	run.DataDir = opts.WorkDir
	p := &Pipeline{cfg: &run, opts: Options{Logger: opts.Logger, Engine: opts.Engine, Clock: opts.Clock}.withDefaults(&run), store: store}
	p.logger = p.opts.Logger
	p.dead.set = map[string]map[deadKey]bool{oc.Name: {}}
	op, err := openExecOperator(ctx, p, oc)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			op.close(ctx)
		}
	}()
	e := &Exec{p: p, op: op}
	if err := e.chooseInput(opts.Subject); err != nil {
		return nil, err
	}
	p.exec = &execCollector{maxPayload: execMaxPayload(cfg), outputs: op.outputs}
	for _, s := range op.sinks {
		p.exec.sinks = append(p.exec.sinks, s.cfg.Name)
	}
	if err := op.startTasks(ctx, store); err != nil {
		return nil, err
	}
	return e, nil
}

// openExecOperator compiles oc and probes its declarations, as Open does.
func openExecOperator(ctx context.Context, p *Pipeline, oc *config.Operator) (*operator, error) {
	rt, mod, err := compileOperator(ctx, p.compilationCache(), oc, p.opts.Engine)
	if err != nil {
		return nil, err
	}
	op := newOperator(p, oc, rt, mod)
	p.operators = []*operator{op}
	if err := op.probeDeclarations(ctx); err != nil {
		op.close(ctx)
		return nil, fmt.Errorf("%s: operator %q: %w", config.Pos(oc.ModuleRange), oc.Name, err)
	}
	return op, nil
}

// chooseInput makes the operator's first input the one records arrive on,
// on subject; its source is the source of their inputRecords.
func (e *Exec) chooseInput(subject string) error {
	oc := e.op.cfg
	s := &source{p: e.p, index: 0, cfg: e.p.cfg.Source(oc.Inputs[0])}
	if s.cfg == nil {
		return fmt.Errorf("operator %q: input %q is not a source of the pipeline", oc.Name, oc.Inputs[0])
	}
	s.eventID = eventIDExtractor(s.cfg)
	e.p.sources = []*source{s}
	e.src, e.input = s, 0
	e.subject = subject
	if e.subject == "" {
		e.subject = e.src.cfg.Subject
	}
	if oc.Key.SubjectToken > 0 && (e.subject == "" || strings.ContainsAny(e.subject, "*>")) {
		return fmt.Errorf("operator %q takes its key from subject token %d, and source %q has no literal subject (%q): give the subject the records arrive on",
			oc.Name, oc.Key.SubjectToken, e.src.cfg.Name, e.src.cfg.Subject)
	}
	return nil
}

// execMaxPayload is the max payload of cfg's embedded server, or the
// server default when the config sets none or names a server.
func execMaxPayload(cfg *config.Pipeline) int64 {
	if cfg.Server.URL == "" && cfg.Server.MaxPayload > 0 {
		return int64(cfg.Server.MaxPayload)
	}
	return natsio.DefaultMaxPayload
}

// Process runs recs through the operator as a source routes one fetch:
// each record's key, the records split among the tasks by key group, each
// task's share in batches. A record without a usable key, or one the guest
// fails on, becomes a dead letter. An error is a failure a pipeline would
// stop on (a fault outside any record twice in a row, a host failure).
func (e *Exec) Process(ctx context.Context, recs []ExecRecord) error {
	chunks := make([][]inputRecord, len(e.op.tasks))
	for i := range recs {
		e.seq++
		m := &natsio.Message{Stream: e.src.cfg.Stream, Sequence: e.seq, Subject: e.subject, Data: recs[i].Data, Header: recs[i].Header, Time: recs[i].Time}
		key, err := e.op.recordKey(e.input, m)
		if err != nil {
			if err := e.p.keyFailure(ctx, e.op, e.src, m, err); err != nil {
				return err
			}
			continue
		}
		t := e.op.taskFor(key)
		chunks[t] = append(chunks[t], inputRecord{source: e.src.index, input: e.input, msg: m, key: key})
	}
	for t, chunk := range chunks {
		if len(chunk) == 0 {
			continue
		}
		if err := e.op.tasks[t].processItem(ctx, taskItem{records: chunk, input: int(e.input), upTo: e.seq}); err != nil {
			return err
		}
	}
	return nil
}

// Messages returns what was collected since the last call, in the order a
// pipeline would have published it per task.
func (e *Exec) Messages() []ExecMessage {
	msgs := e.p.exec.msgs
	e.p.exec.msgs = nil
	return msgs
}

// Finish commits every task's state to the store, as a snapshot does.
func (e *Exec) Finish() error {
	for _, t := range e.op.tasks {
		if err := t.flushState(0); err != nil {
			return err
		}
	}
	return nil
}

// State returns the operator's committed state entries in key order
// (Finish commits), expired ones included until cleanup removed them.
func (e *Exec) State() ([]StateEntry, error) {
	var out []StateEntry
	all := state.KeyGroupRange{Start: 0, End: e.op.cfg.MaxParallelism}
	err := e.p.store.ScanValues(e.op.cfg.Name, all, func(kg int, name, key []byte, v state.Value) error {
		se := StateEntry{Operator: e.op.cfg.Name, KeyGroup: kg, Name: string(name), Key: string(key), Value: append([]byte(nil), v.Data...)}
		if v.HasExpiry {
			se.ExpiresAt = v.ExpiresAt
		}
		out = append(out, se)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("operator %q: read state: %w", e.op.cfg.Name, err)
	}
	return out, nil
}

// Stats counts the records handed to Process and what became of them.
func (e *Exec) Stats() ExecStats {
	s := ExecStats{Records: e.seq, DeadLettered: e.p.dead.publishedBy(e.op.cfg.Name)}
	for _, t := range e.op.tasks {
		s.Processed += t.processed.Load()
		s.Emitted += t.emitted.Load()
		s.InstanceRestarts += t.restarts.Load()
	}
	return s
}

// Operator is the operator's config as the run uses it.
func (e *Exec) Operator() *config.Operator { return e.op.cfg }

// Close discards the instances and the compiled module; the store stays open.
func (e *Exec) Close(ctx context.Context) { e.op.close(ctx) }
