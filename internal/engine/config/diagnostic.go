package config

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Severity says whether a diagnostic stops the pipeline from loading.
type Severity int

const (
	// SeverityError makes Load and Parse fail.
	SeverityError Severity = iota + 1
	// SeverityWarning is reported but does not fail the load: the setting is legal and may be
	// intended, yet it is likely to surprise the user at run time.
	SeverityWarning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == SeverityWarning {
		return "warning"
	}
	return "error"
}

// Diagnostic is one problem found in a config file, at a position in it.
type Diagnostic struct {
	Severity Severity
	// Message names the object and says what the user can do, without the position.
	Message string
	// Range is the part of the file the message is about. A zero Start.Line means the
	// diagnostic concerns the whole file (for example: it cannot be read).
	Range hcl.Range
	// Err is the cause, for errors.Is: ErrInvalid, ErrRead (with the OS error) or whatever
	// the caller of Errorf wrapped.
	Err error
}

// Errorf returns an error diagnostic at r whose message is fmt.Sprintf(format, args...); %w
// wraps a cause as fmt.Errorf does. The engine uses it with Operator.ModuleRange to report a
// problem with a module at the line that names it.
func Errorf(r hcl.Range, format string, args ...any) Diagnostic {
	err := fmt.Errorf(format, args...)
	return Diagnostic{Severity: SeverityError, Message: err.Error(), Range: r, Err: err}
}

// Pos formats the start of r as "file:line:col", or just "file" when r has no line.
func Pos(r hcl.Range) string {
	if r.Start.Line == 0 {
		return r.Filename
	}
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}

// String formats the diagnostic as "file:line:col: message", with "warning: " before the message
// of a warning.
func (d Diagnostic) String() string {
	msg := d.Message
	if d.Severity == SeverityWarning {
		msg = "warning: " + msg
	}
	if pos := Pos(d.Range); pos != "" {
		return pos + ": " + msg
	}
	return msg
}

// Error returns String, so that a Diagnostic can be returned as an error.
func (d Diagnostic) Error() string { return d.String() }

// Unwrap returns the cause.
func (d Diagnostic) Unwrap() error { return d.Err }

// Diagnostics is a list of diagnostics. As an error it prints one "file:line:col: message" line
// per diagnostic, and errors.Is and errors.As see the cause of each.
type Diagnostics []Diagnostic

// Error prints every diagnostic on its own line.
func (ds Diagnostics) Error() string {
	lines := make([]string, len(ds))
	for i, d := range ds {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the cause of every diagnostic.
func (ds Diagnostics) Unwrap() []error {
	errs := make([]error, 0, len(ds))
	for _, d := range ds {
		if d.Err != nil {
			errs = append(errs, d.Err)
		}
	}
	return errs
}

// HasErrors reports whether any diagnostic has error severity.
func (ds Diagnostics) HasErrors() bool {
	return slices.ContainsFunc(ds, func(d Diagnostic) bool { return d.Severity == SeverityError })
}

// Errors returns the diagnostics with error severity.
func (ds Diagnostics) Errors() Diagnostics { return ds.filter(SeverityError) }

// Warnings returns the diagnostics with warning severity.
func (ds Diagnostics) Warnings() Diagnostics { return ds.filter(SeverityWarning) }

func (ds Diagnostics) filter(s Severity) Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if d.Severity == s {
			out = append(out, d)
		}
	}
	return out
}

// sort orders the diagnostics by position so they read top to bottom like the file, whatever
// order the checks found them in.
func (ds Diagnostics) sort() {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.Range.Filename, b.Range.Filename),
			cmp.Compare(a.Range.Start.Line, b.Range.Start.Line),
			cmp.Compare(a.Range.Start.Column, b.Range.Start.Column),
		)
	})
}

// fromHCL converts HCL's own diagnostics (syntax, unsupported arguments with their "did you
// mean" hints, failed function calls), prefixing owner so that the user knows which block they
// are about.
func fromHCL(hds hcl.Diagnostics, owner string) Diagnostics {
	out := make(Diagnostics, 0, len(hds))
	for _, hd := range hds {
		out = append(out, convertHCL(hd, owner))
	}
	return out
}

func convertHCL(hd *hcl.Diagnostic, owner string) Diagnostic {
	d := Diagnostic{Severity: SeverityError, Message: hd.Summary, Err: ErrInvalid}
	if hd.Severity == hcl.DiagWarning {
		d.Severity, d.Err = SeverityWarning, nil
	}
	if hd.Detail != "" {
		d.Message += "; " + hd.Detail
	}
	if hd.Summary == "Variables not allowed" {
		// The usual cause is a name written without quotes, e.g. inputs = [payments].
		d.Message += " Names of streams, sources and sinks are strings: put them in quotes."
	}
	if owner != "" {
		d.Message = owner + ": " + d.Message
	}
	switch {
	case hd.Subject != nil:
		d.Range = *hd.Subject
	case hd.Context != nil:
		d.Range = *hd.Context
	}
	return d
}
