package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// Load reads and decodes the config file at path; relative paths inside it resolve against its
// directory. See Parse for the results.
func Load(path string) (*Pipeline, Diagnostics, error) {
	src, reason := readRegular(path)
	if reason != nil {
		d := Diagnostic{
			Severity: SeverityError,
			Message:  fmt.Sprintf("cannot read the pipeline config: %v", reason),
			Range:    hcl.Range{Filename: path},
			Err:      fmt.Errorf("%w %q: %w", ErrRead, path, reason),
		}
		diags := Diagnostics{d}
		return nil, diags, diags
	}
	return Parse(src, path)
}

// Parse decodes a config file's text; filename is used in positions and its directory is where
// relative paths (data_dir, modules, config_file, file()) resolve.
//
// The diagnostics hold every error and warning found, ordered by position. err is nil if and
// only if there is no error among them; it is then nil too. Otherwise err is the Diagnostics
// holding the errors only, whose Error prints one "file:line:col: message" line per error and
// which wraps ErrInvalid (or ErrRead), and the returned Pipeline is nil.
func Parse(src []byte, filename string) (*Pipeline, Diagnostics, error) {
	d := newDecoder(filename)
	p := d.decode(src)
	d.diags.sort()
	if d.diags.HasErrors() {
		return nil, d.diags, d.diags.Errors()
	}
	return p, d.diags, nil
}
