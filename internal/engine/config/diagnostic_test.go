package config

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

func rangeAt(file string, line, col int) hcl.Range {
	return hcl.Range{Filename: file, Start: hcl.Pos{Line: line, Column: col}, End: hcl.Pos{Line: line, Column: col + 1}}
}

func TestDiagnosticString(t *testing.T) {
	for _, tc := range []struct {
		d    Diagnostic
		want string
	}{
		{Diagnostic{Severity: SeverityError, Message: "bad", Range: rangeAt("p.hcl", 14, 17)}, "p.hcl:14:17: bad"},
		{Diagnostic{Severity: SeverityWarning, Message: "odd", Range: rangeAt("p.hcl", 2, 1)}, "p.hcl:2:1: warning: odd"},
		{Diagnostic{Severity: SeverityError, Message: "unreadable", Range: hcl.Range{Filename: "p.hcl"}}, "p.hcl: unreadable"},
		{Diagnostic{Severity: SeverityError, Message: "nowhere"}, "nowhere"},
	} {
		if got := tc.d.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
		if got := tc.d.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

func TestErrorfWraps(t *testing.T) {
	d := Errorf(rangeAt("p.hcl", 3, 12), "operator %q: %w", "risk", fs.ErrNotExist)
	if d.String() != `p.hcl:3:12: operator "risk": file does not exist` {
		t.Errorf("got %q", d)
	}
	if !errors.Is(d, fs.ErrNotExist) || d.Severity != SeverityError {
		t.Errorf("Errorf lost its cause or severity: %#v", d)
	}
	op := Operator{Name: "risk", Module: "/m/risk.wasm", ModuleRange: rangeAt("p.hcl", 4, 12)}
	err := error(op.ModuleError(fs.ErrPermission))
	if err.Error() != `p.hcl:4:12: operator "risk": module "/m/risk.wasm": permission denied` || !errors.Is(err, fs.ErrPermission) {
		t.Errorf("ModuleError = %v", err)
	}
}

func TestDiagnosticsList(t *testing.T) {
	ds := Diagnostics{
		{Severity: SeverityWarning, Message: "w", Range: rangeAt("p.hcl", 9, 1)},
		{Severity: SeverityError, Message: "late", Range: rangeAt("p.hcl", 10, 3), Err: ErrInvalid},
		{Severity: SeverityError, Message: "early", Range: rangeAt("p.hcl", 2, 5), Err: ErrRead},
		{Severity: SeverityError, Message: "same line", Range: rangeAt("p.hcl", 10, 1), Err: ErrInvalid},
	}
	ds.sort()
	want := "p.hcl:2:5: early\np.hcl:9:1: warning: w\np.hcl:10:1: same line\np.hcl:10:3: late"
	if got := ds.Error(); got != want {
		t.Errorf("sorted:\n%s\nwant\n%s", got, want)
	}
	if !ds.HasErrors() || len(ds.Errors()) != 3 || len(ds.Warnings()) != 1 {
		t.Errorf("HasErrors/Errors/Warnings wrong: %v %d %d", ds.HasErrors(), len(ds.Errors()), len(ds.Warnings()))
	}
	if ds.Warnings().HasErrors() {
		t.Error("warnings alone reported as errors")
	}
	var err error = ds.Errors()
	if !errors.Is(err, ErrInvalid) || !errors.Is(err, ErrRead) {
		t.Error("Diagnostics does not unwrap to its causes")
	}
	var got Diagnostics
	if !errors.As(err, &got) || len(got) != 3 {
		t.Error("errors.As cannot recover the Diagnostics")
	}
}

func TestConvertHCL(t *testing.T) {
	subject := rangeAt("p.hcl", 5, 3)
	context := rangeAt("p.hcl", 4, 1)
	for _, tc := range []struct {
		hd    hcl.Diagnostic
		owner string
		want  string
	}{
		{hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unsupported argument", Detail: "No.", Subject: &subject},
			`operator "x"`, `p.hcl:5:3: operator "x": Unsupported argument; No.`},
		{hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Hmm", Context: &context}, "", "p.hcl:4:1: warning: Hmm"},
		{hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Variables not allowed", Detail: "Variables may not be used here.", Subject: &subject},
			"", "p.hcl:5:3: Variables not allowed; Variables may not be used here. Names of streams, sources and sinks are strings: put them in quotes."},
	} {
		d := convertHCL(&tc.hd, tc.owner)
		if got := d.String(); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
		if (d.Severity == SeverityError) != errors.Is(d, ErrInvalid) {
			t.Errorf("%q: error diagnostics wrap ErrInvalid, warnings nothing", d)
		}
	}
}

func TestSeverityString(t *testing.T) {
	if SeverityError.String() != "error" || SeverityWarning.String() != "warning" {
		t.Error("severity names")
	}
}
