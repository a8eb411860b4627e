package execrun

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// maxConfigBytes bounds a --config @FILE, as config_file is bounded.
const maxConfigBytes = 16 << 20

// loadConfig returns the pipeline config exec runs, with its operator.
func loadConfig(o Options) (*config.Pipeline, *config.Operator, error) {
	module, err := filepath.Abs(o.Module)
	if err != nil {
		return nil, nil, fmt.Errorf("module %s: %w", o.Module, err)
	}
	load := fromPipeline
	if o.Pipeline == "" {
		load = fromFlags
	}
	cfg, oc, err := load(o, module)
	if err != nil {
		return nil, nil, err
	}
	// The module is the one given, not the block's: errors in it name it.
	oc.ModuleRange = hcl.Range{Filename: o.Module}
	return cfg, oc, nil
}

// fromPipeline takes the operator block of the pipeline file; the module
// and the flags given replace what the block says.
func fromPipeline(o Options, module string) (*config.Pipeline, *config.Operator, error) {
	cfg, _, err := config.Load(o.Pipeline)
	if err != nil {
		return nil, nil, err
	}
	oc := cfg.Operator(o.Operator)
	if oc == nil {
		return nil, nil, fmt.Errorf("%s: no operator %q; its operators are %s", o.Pipeline, o.Operator, operatorNames(cfg))
	}
	oc.Module, oc.ModuleRef = module, ""
	if o.KeyField != "" {
		oc.Key = config.Key{JSONField: o.KeyField}
		if err := (natsio.KeyExtractor{JSONField: o.KeyField}).Validate(); err != nil {
			return nil, nil, fmt.Errorf("--key-field: %w", err)
		}
	}
	if o.ConfigSet {
		if oc.Config, err = guestConfig(o.Config); err != nil {
			return nil, nil, err
		}
	}
	return cfg, oc, nil
}

func operatorNames(cfg *config.Pipeline) string {
	names := make([]string, len(cfg.Operators))
	for i, op := range cfg.Operators {
		names[i] = fmt.Sprintf("%q", op.Name)
	}
	return strings.Join(names, ", ")
}

// guestConfig is a --config value: the text itself, or "@FILE"'s bytes.
func guestConfig(v string) ([]byte, error) {
	name, isFile := strings.CutPrefix(v, "@")
	if !isFile {
		return []byte(v), nil
	}
	b, err := readBounded(name, maxConfigBytes)
	if err != nil {
		return nil, fmt.Errorf("--config @%s: %w", name, err)
	}
	return b, nil
}

func readBounded(name string, limit int64) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%d bytes is over the %d-byte limit", fi.Size(), limit)
	}
	return os.ReadFile(name)
}

// fromFlags writes the flags as a one-operator pipeline and decodes it
// with the config decoder, so that every default (limits, max
// parallelism, dead-letter subject) and every check is the one a pipeline
// file gets.
func fromFlags(o Options, module string) (*config.Pipeline, *config.Operator, error) {
	name := o.Operator
	if name == "" {
		name = nameFromModule(module)
	}
	src, err := flagsPipeline(o, name, module)
	if err != nil {
		return nil, nil, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, nil, err
	}
	cfg, _, err := config.Parse([]byte(src), filepath.Join(cwd, "(exec flags)"))
	if err != nil {
		return nil, nil, fmt.Errorf("exec flags: %w", err)
	}
	return cfg, cfg.Operator(name), nil
}

// flagsPipeline is the pipeline text of the flags: the records on
// exec.in, each output to a sink of its own on exec.out.SINK.
func flagsPipeline(o Options, name, module string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "name = \"exec\"\nstream \"EXEC\" {\n  subjects = [\"exec.in\"]\n}\n")
	fmt.Fprintf(&b, "stream \"EXEC_OUT\" {\n  subjects = [\"exec.out.>\"]\n}\n")
	fmt.Fprintf(&b, "source \"input\" {\n  stream  = \"EXEC\"\n  subject = \"exec.in\"\n}\n")
	fmt.Fprintf(&b, "operator %s {\n  module = %s\n  inputs = [\"input\"]\n", hclString(name), hclString(module))
	fmt.Fprintf(&b, "  key {\n    json_field = %s\n  }\n", hclString(o.KeyField))
	if err := writeConfig(&b, o); err != nil {
		return "", err
	}
	var sinks strings.Builder
	b.WriteString("  outputs = {\n")
	for i, out := range o.Outputs {
		sink := sinkName(out, i)
		fmt.Fprintf(&b, "    %s = %s\n", hclString(out), hclString(sink))
		fmt.Fprintf(&sinks, "sink %s {\n  subject = %s\n}\n", hclString(sink), hclString("exec.out."+sink))
	}
	b.WriteString("  }\n}\n")
	b.WriteString(sinks.String())
	return b.String(), nil
}

// writeConfig adds the guest config: a file as config_file, so the
// decoder reads it with a pipeline's rules.
func writeConfig(b *strings.Builder, o Options) error {
	if !o.ConfigSet || o.Config == "" {
		return nil
	}
	if name, isFile := strings.CutPrefix(o.Config, "@"); isFile {
		abs, err := filepath.Abs(name)
		if err != nil {
			return fmt.Errorf("--config @%s: %w", name, err)
		}
		fmt.Fprintf(b, "  config_file = %s\n", hclString(abs))
		return nil
	}
	if !utf8.ValidString(o.Config) {
		return fmt.Errorf("%w: --config is not valid UTF-8; put the bytes in a file and give --config @FILE", ErrUsage)
	}
	fmt.Fprintf(b, "  config = %s\n", hclString(o.Config))
	return nil
}

var objectName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// sinkName is the sink of output i: the output's name when it is a valid
// object name.
func sinkName(output string, i int) string {
	if objectName.MatchString(output) {
		return output
	}
	return fmt.Sprintf("output-%d", i+1)
}

// nameFromModule makes an operator name of the module's file name
// ("risk.wasm" → "risk").
func nameFromModule(module string) string {
	base := strings.TrimSuffix(filepath.Base(module), filepath.Ext(module))
	name := regexp.MustCompile(`[^A-Za-z0-9_-]+`).ReplaceAllString(base, "-")
	if strings.Trim(name, "-") == "" {
		return "operator"
	}
	return name
}

// hclString quotes s as an HCL string literal with no interpolation.
func hclString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04x`, r)
		case (r == '$' || r == '%') && strings.HasPrefix(s[i+1:], "{"):
			b.WriteRune(r) // "$${" and "%%{" are a literal "${" and "%{"
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
