package config

import (
	"crypto/sha256"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/wasmstream/wasmstream/internal/protocol"
)

// redacted replaces secrets in the printed config.
const redacted = "<redacted>"

// String prints the effective config as HCL: every default filled in, every path absolute,
// secrets (password, token, a password inside url) replaced by "<redacted>". It is what a run
// records beside its checkpoints, and without secrets it reads back as the same Pipeline.
func (p *Pipeline) String() string {
	f := hclwrite.NewEmptyFile()
	body := f.Body()
	body.SetAttributeValue("name", cty.StringVal(p.Name))
	body.SetAttributeValue("data_dir", cty.StringVal(p.DataDir))
	body.AppendNewline()
	p.writeServer(body.AppendNewBlock("server", nil).Body())
	body.AppendNewline()
	log := body.AppendNewBlock("log", nil).Body()
	log.SetAttributeValue("format", cty.StringVal(p.Log.Format))
	log.SetAttributeValue("level", cty.StringVal(p.Log.Level))
	body.AppendNewline()
	writeCheckpoint(body.AppendNewBlock("checkpoint", nil).Body(), p.Checkpoint)
	if p.Server.URL != "" {
		body.AppendNewline()
		writeCluster(body.AppendNewBlock("cluster", nil).Body(), p.Cluster)
	}
	if p.Observe.Enabled() {
		body.AppendNewline()
		writeObserve(body.AppendNewBlock("observe", nil).Body(), p.Observe)
	}
	if p.HasExchangeEdges() {
		body.AppendNewline()
		writeExchange(body.AppendNewBlock("exchange", nil).Body(), p.Exchange)
	}
	for _, s := range p.Streams {
		writeStream(body, s)
	}
	for _, s := range p.Sources {
		writeSource(body, s)
	}
	for _, op := range p.Operators {
		writeOperator(body, op)
	}
	for _, s := range p.Sinks {
		writeSink(body, s)
	}
	return string(hclwrite.Format(f.Bytes()))
}

// writeServer ends with outage_budget after a blank line, so that it does not shift the
// alignment of the address and credentials above it.
func (p *Pipeline) writeServer(b *hclwrite.Body) {
	p.writeServerAddress(b)
	b.AppendNewline()
	b.SetAttributeValue("outage_budget", durationVal(p.Server.OutageBudget))
}

func (p *Pipeline) writeServerAddress(b *hclwrite.Body) {
	s := p.Server
	if s.URL == "" {
		b.SetAttributeValue("embedded_port", cty.NumberIntVal(int64(s.EmbeddedPort)))
		if s.MaxPayload != 0 {
			b.SetAttributeValue("max_payload", cty.NumberIntVal(int64(s.MaxPayload)))
		}
		return
	}
	b.SetAttributeValue("url", cty.StringVal(redactURLs(s.URL)))
	setIf(b, "credentials", s.Credentials)
	setIf(b, "user", s.User)
	if s.Password != "" {
		b.SetAttributeValue("password", cty.StringVal(redacted))
	}
	if s.Token != "" {
		b.SetAttributeValue("token", cty.StringVal(redacted))
	}
	writeServerConnection(b, s)
}

// writeCheckpoint leaves alignment_timeout out in unaligned mode, where it has no effect and
// reading it back would warn.
func writeCheckpoint(b *hclwrite.Body, c Checkpoint) {
	b.SetAttributeValue("interval", durationVal(c.Interval))
	b.SetAttributeValue("timeout", durationVal(c.Timeout))
	b.SetAttributeValue("min_pause", durationVal(c.MinPause))
	b.SetAttributeValue("mode", cty.StringVal(c.Mode.String()))
	if c.Mode != protocol.Unaligned {
		b.SetAttributeValue("alignment_timeout", durationVal(c.AlignmentTimeout))
	}
	b.SetAttributeValue("retain", cty.NumberIntVal(int64(c.Retain)))
}

// writeCluster prints the cluster block. String prints it only with a server at url: a worker
// run without the block uses its defaults, and with the embedded server the block is an error.
func writeCluster(b *hclwrite.Body, c Cluster) {
	b.SetAttributeValue("replicas", cty.NumberIntVal(int64(c.Replicas)))
	b.SetAttributeValue("worker_timeout", durationVal(c.WorkerTimeout))
	b.SetAttributeValue("lease_ttl", durationVal(c.LeaseTTL))
	b.SetAttributeValue("stabilization", durationVal(c.Stabilization))
}

func writeStream(body *hclwrite.Body, s Stream) {
	body.AppendNewline()
	b := body.AppendNewBlock("stream", []string{s.Name}).Body()
	b.SetAttributeValue("subjects", stringList(s.Subjects))
	if s.DuplicateWindow > 0 {
		b.SetAttributeValue("duplicate_window", durationVal(s.DuplicateWindow))
	}
	b.SetAttributeValue("storage", cty.StringVal(s.Storage))
	if s.Retention != DefaultRetention {
		b.SetAttributeValue("retention", cty.StringVal(s.Retention))
	}
	if s.Replicas != DefaultReplicas {
		b.SetAttributeValue("replicas", cty.NumberIntVal(int64(s.Replicas)))
	}
}

func writeSource(body *hclwrite.Body, s Source) {
	body.AppendNewline()
	b := body.AppendNewBlock("source", []string{s.Name}).Body()
	b.SetAttributeValue("stream", cty.StringVal(s.Stream))
	setIf(b, "subject", s.Subject)
	b.SetAttributeValue("start_sequence", cty.NumberUIntVal(s.StartSequence))
	if s.MaxDuplicateDelay > 0 {
		b.SetAttributeValue("max_duplicate_delay", durationVal(s.MaxDuplicateDelay))
	}
	if s.Route {
		b.SetAttributeValue("route", cty.True)
	}
	if s.EventID != nil {
		writeKey(b.AppendNewBlock("event_id", nil).Body(), *s.EventID)
	}
}

func writeOperator(body *hclwrite.Body, op Operator) {
	body.AppendNewline()
	b := body.AppendNewBlock("operator", []string{op.Name}).Body()
	if op.ModuleRef != "" {
		b.SetAttributeValue("module", cty.StringVal(op.ModuleRef))
	} else {
		b.SetAttributeValue("module", cty.StringVal(op.Module))
	}
	setIf(b, "state_version", op.StateVersion)
	b.SetAttributeValue("inputs", stringList(op.Inputs))
	if op.Key != (Key{}) {
		writeKey(b.AppendNewBlock("key", nil).Body(), op.Key)
	}
	for _, in := range op.Inputs {
		if k, ok := op.InputKeys[in]; ok {
			writeKey(b.AppendNewBlock("input", []string{in}).Body().AppendNewBlock("key", nil).Body(), k)
		}
	}
	for _, st := range op.States {
		writeState(b.AppendNewBlock("state", []string{st.Name}).Body(), st)
	}
	b.SetAttributeValue("parallelism", cty.NumberIntVal(int64(op.Parallelism)))
	b.SetAttributeValue("max_parallelism", cty.NumberIntVal(int64(op.MaxParallelism)))
	writeGuestConfig(b, op.Config)
	if len(op.Outputs) > 0 || len(op.InternalOutputs) == 0 {
		b.SetAttributeValue("outputs", stringMap(op.Outputs))
	}
	if len(op.InternalOutputs) > 0 {
		b.SetAttributeValue("internal_outputs", stringList(op.InternalOutputs))
	}
	b.SetAttributeValue("dead_letter_subject", cty.StringVal(op.DeadLetterSubject))
	writeLimits(b.AppendNewBlock("limits", nil).Body(), op.Limits)
}

// writeState prints a state block; the TTL options only with a TTL, where they act.
func writeState(b *hclwrite.Body, s StateConfig) {
	if !s.HasTTL() {
		return
	}
	b.SetAttributeValue("ttl", durationVal(s.TTL.Duration))
	b.SetAttributeValue("ttl_update", cty.StringVal(s.TTL.Update.String()))
	b.SetAttributeValue("ttl_visibility", cty.StringVal(s.TTL.Visibility.String()))
	b.SetAttributeValue("ttl_time", cty.StringVal(s.TTL.TimeDomain.String()))
}

func writeKey(b *hclwrite.Body, k Key) {
	setIf(b, "json_field", k.JSONField)
	if k.SubjectToken != 0 {
		b.SetAttributeValue("subject_token", cty.NumberIntVal(int64(k.SubjectToken)))
	}
	setIf(b, "header", k.Header)
}

// writeGuestConfig prints the guest's config as a string when it is text. Bytes that HCL cannot
// hold in a string (not UTF-8) are summarised by size and hash in a comment instead.
func writeGuestConfig(b *hclwrite.Body, config []byte) {
	switch {
	case len(config) == 0:
	case utf8.Valid(config):
		b.SetAttributeValue("config", cty.StringVal(string(config)))
	default:
		b.AppendUnstructuredTokens(hclwrite.Tokens{{
			Type:  hclsyntax.TokenComment,
			Bytes: fmt.Appendf(nil, "# config: %d bytes, not UTF-8, sha256 %x\n", len(config), sha256.Sum256(config)),
		}})
	}
}

func writeLimits(b *hclwrite.Body, l Limits) {
	b.SetAttributeValue("memory_pages", cty.NumberUIntVal(uint64(l.MemoryPages)))
	b.SetAttributeValue("batch_timeout", durationVal(l.BatchTimeout))
	b.SetAttributeValue("batch_size", cty.NumberIntVal(int64(l.BatchSize)))
	b.SetAttributeValue("max_value_bytes", cty.NumberIntVal(int64(l.MaxValueBytes)))
	b.SetAttributeValue("max_emits_per_record", cty.NumberIntVal(int64(l.MaxEmitsPerRecord)))
	b.SetAttributeValue("max_table_elements", cty.NumberUIntVal(uint64(l.MaxTableElements)))
}

func writeSink(body *hclwrite.Body, s Sink) {
	body.AppendNewline()
	b := body.AppendNewBlock("sink", []string{s.Name}).Body()
	b.SetAttributeValue("subject", cty.StringVal(s.Subject))
	b.SetAttributeValue("mode", cty.StringVal(s.Mode))
	if s.Mode == ModeTransactional {
		b.SetAttributeValue("batch_size", cty.NumberIntVal(int64(s.BatchSize)))
	}
}

// setIf writes a string attribute only when it is set, so that an unset optional stays unset.
func setIf(b *hclwrite.Body, name, value string) {
	if value != "" {
		b.SetAttributeValue(name, cty.StringVal(value))
	}
}

func stringList(items []string) cty.Value {
	if len(items) == 0 {
		return cty.ListValEmpty(cty.String)
	}
	vals := make([]cty.Value, len(items))
	for i, s := range items {
		vals[i] = cty.StringVal(s)
	}
	return cty.ListVal(vals)
}

func stringMap(m map[string]string) cty.Value {
	if len(m) == 0 {
		return cty.MapValEmpty(cty.String)
	}
	vals := make(map[string]cty.Value, len(m))
	for k, v := range m {
		vals[k] = cty.StringVal(v)
	}
	return cty.MapVal(vals)
}

func durationVal(d time.Duration) cty.Value { return cty.StringVal(d.String()) }
