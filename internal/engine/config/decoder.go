package config

import (
	"fmt"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// decoder turns one file into a Pipeline, collecting every diagnostic on the way instead of
// stopping at the first, so the user can fix them all in one edit.
type decoder struct {
	filename string
	dir      string
	ctx      *hcl.EvalContext
	diags    Diagnostics
	// declared remembers where each "kind name" was first declared, to report duplicates.
	declared map[string]hcl.Range
	// at holds positions of references, for the cross-checks that run once every block is read.
	at positions
}

// positions are kept beside the Pipeline, index for index, because the public types only carry
// the range of the block itself.
type positions struct {
	streamSubjects [][]hcl.Range
	sourceStream   []hcl.Range
	sourceSubject  []hcl.Range
	inputs         [][]hcl.Range
	outputs        []map[string]hcl.Range
	// internalOutputs and inputKeys: per operator, by output name and by input.
	internalOutputs []map[string]hcl.Range
	inputKeys       []map[string]hcl.Range
	deadLetter      []hcl.Range
	sinkSubject     []hcl.Range
}

func newDecoder(filename string) *decoder {
	dir, err := filepath.Abs(filepath.Dir(filename))
	d := &decoder{filename: filename, dir: dir, declared: map[string]hcl.Range{}}
	if err != nil {
		d.errorf(d.fileStart(), "cannot resolve the directory of the config file: %v", err)
	}
	d.ctx = evalContext(dir)
	return d
}

// fileStart is where diagnostics about the file as a whole point.
func (d *decoder) fileStart() hcl.Range {
	return hcl.Range{Filename: d.filename, Start: hcl.InitialPos, End: hcl.InitialPos}
}

func (d *decoder) add(ds ...Diagnostic) { d.diags = append(d.diags, ds...) }

func (d *decoder) errorf(r hcl.Range, format string, args ...any) {
	d.add(Diagnostic{Severity: SeverityError, Message: fmt.Sprintf(format, args...), Range: r, Err: ErrInvalid})
}

func (d *decoder) warnf(r hcl.Range, format string, args ...any) {
	d.add(Diagnostic{Severity: SeverityWarning, Message: fmt.Sprintf(format, args...), Range: r})
}

// decode reads the whole file. Syntax errors stop it: what follows a syntax error is guesswork
// and would only add noise. So do absurd number literals, which evaluation could take hours over.
func (d *decoder) decode(src []byte) *Pipeline {
	p := &Pipeline{Dir: d.dir, Text: string(src)}
	f, hds := hclsyntax.ParseConfig(src, d.filename, hcl.InitialPos)
	if hds.HasErrors() {
		d.add(fromHCL(hds, "")...)
		return p
	}
	if body, ok := f.Body.(*hclsyntax.Body); ok {
		if bad := checkNumberLiterals(body); len(bad) > 0 {
			d.add(bad...)
			return p
		}
	}
	content, hds := f.Body.Content(fileSchema)
	d.add(fromHCL(hds, "")...)
	d.decodeTop(p, &attrs{d: d, def: d.fileStart(), all: content.Attributes})
	d.decodeBlocks(p, content.Blocks)
	d.check(p)
	return p
}

// decodeTop reads the top-level attributes.
func (d *decoder) decodeTop(p *Pipeline, a *attrs) {
	name, st := a.str("name")
	switch {
	case st == absent:
		a.missing("name", `add e.g. name = "payment-risk" at the top of the file`)
	case st == present && !validPipelineName(name):
		a.errorf("name", "%q is not a valid pipeline name; use only lowercase letters, digits, '_' and '-'", name)
	}
	p.Name = name
	dataDir := a.strOr("data_dir", DefaultDataDir)
	if dataDir == "" {
		a.errorf("data_dir", "must not be empty; remove it to use %q, or name a directory", DefaultDataDir)
	}
	p.DataDir = resolve(d.dir, dataDir)
}

// decodeBlocks reads the blocks in file order, so that lists keep the user's order.
func (d *decoder) decodeBlocks(p *Pipeline, blocks hcl.Blocks) {
	p.Server = Server{EmbeddedPort: DefaultEmbeddedPort, OutageBudget: DefaultOutageBudget}
	p.Log = Log{Format: DefaultLogFormat, Level: DefaultLogLevel}
	p.Checkpoint = defaultCheckpoint()
	p.Cluster = defaultCluster()
	p.Exchange = defaultExchange()
	for _, b := range blocks {
		switch b.Type {
		case "server":
			if d.once(b) {
				p.Server = d.decodeServer(b)
			}
		case "log":
			if d.once(b) {
				p.Log = d.decodeLog(b)
			}
		case "checkpoint":
			if d.once(b) {
				p.Checkpoint = d.decodeCheckpoint(b)
			}
		case "cluster":
			if d.once(b) {
				p.Cluster = d.decodeCluster(b)
			}
		case "observe":
			if d.once(b) {
				p.Observe = d.decodeObserve(b)
			}
		case "exchange":
			if d.once(b) {
				p.Exchange = d.decodeExchange(b)
			}
		case "stream":
			d.addStream(p, b)
		case "source":
			d.addSource(p, b)
		case "operator":
			d.addOperator(p, b)
		case "sink":
			d.addSink(p, b)
		}
	}
}

// once reports whether b is the first block of its type, reporting the others.
func (d *decoder) once(b *hcl.Block) bool {
	if first, dup := d.declared[b.Type]; dup {
		d.errorf(b.DefRange, "%s: only one %s block is allowed (first at %s); merge them", b.Type, b.Type, Pos(first))
		return false
	}
	d.declared[b.Type] = b.DefRange
	return true
}

// declare reports whether b's name is new among its kind, reporting a duplicate.
func (d *decoder) declare(b *hcl.Block) bool {
	key := b.Type + " " + b.Labels[0]
	if first, dup := d.declared[key]; dup {
		d.errorf(b.DefRange, "%s %q is declared twice (first at %s); rename or remove one", b.Type, b.Labels[0], Pos(first))
		return false
	}
	d.declared[key] = b.DefRange
	return true
}

// body decodes a block's content against its schema and returns a reader for its attributes.
func (d *decoder) body(b *hcl.Block, schema *hcl.BodySchema, owner string) (*attrs, hcl.Blocks) {
	content, hds := b.Body.Content(schema)
	d.add(fromHCL(hds, owner)...)
	return &attrs{d: d, owner: owner, def: b.DefRange, all: content.Attributes}, content.Blocks
}

// checkObjectName reports a source, operator or sink name that cannot be used in subjects,
// directory names and metric labels.
func (d *decoder) checkObjectName(b *hcl.Block, owner string) {
	if !validObjectName(b.Labels[0]) {
		d.errorf(b.LabelRanges[0], "%s: not a valid name; use only letters, digits, '_' and '-'", owner)
	}
}
