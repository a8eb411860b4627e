package modref

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRef(t *testing.T) {
	full := strings.Repeat("ab", 32)
	cases := []struct {
		in   string
		want Ref
		err  error
	}{
		{"operator/risk.wasm", Ref{Path: "operator/risk.wasm"}, nil},
		{"risk.wasm", Ref{Path: "risk.wasm"}, nil},
		{"./risk", Ref{Path: "./risk"}, nil},
		{"/opt/ops/risk", Ref{Path: "/opt/ops/risk"}, nil},
		{"dir/x@abcdef12", Ref{Path: "dir/x@abcdef12"}, nil}, // a path wins over @
		{"risk", Ref{Name: "risk"}, nil},
		{"Risk_2-b", Ref{Name: "Risk_2-b"}, nil},
		{"risk@3f2a9c1d", Ref{Name: "risk", Hash: "3f2a9c1d"}, nil},
		{"risk@3F2A9C1D0B", Ref{Name: "risk", Hash: "3f2a9c1d0b"}, nil},
		{"risk@" + full, Ref{Name: "risk", Hash: full}, nil},
		{"", Ref{}, ErrRef},
		{"risk.v2", Ref{}, ErrName},
		{"risk@", Ref{}, ErrRef},
		{"risk@3f2a9c1", Ref{}, ErrRef},       // 7 digits
		{"risk@3f2a9c1g", Ref{}, ErrRef},      // not hex
		{"risk@" + full + "0", Ref{}, ErrRef}, // 65 digits
		{"@3f2a9c1d", Ref{}, ErrName},
		{"a@b@3f2a9c1d", Ref{}, ErrRef},
		{strings.Repeat("n", 65), Ref{}, ErrName},
		{"with space", Ref{}, ErrName},
	}
	for _, tc := range cases {
		got, err := ParseRef(tc.in)
		if tc.err != nil {
			if !errors.Is(err, tc.err) || !errors.Is(err, ErrRef) {
				t.Errorf("ParseRef(%q): got %v, want %v (and ErrRef)", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseRef(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestRefMethods(t *testing.T) {
	full := strings.Repeat("0f", 32)
	for _, tc := range []struct {
		ref           Ref
		local, pinned bool
		str           string
	}{
		{Ref{Path: "a/b.wasm"}, true, false, "a/b.wasm"},
		{Ref{Name: "risk"}, false, false, "risk"},
		{Ref{Name: "risk", Hash: "0f0f0f0f"}, false, false, "risk@0f0f0f0f"},
		{Ref{Name: "risk", Hash: full}, false, true, "risk@" + full},
	} {
		if tc.ref.IsLocal() != tc.local || tc.ref.Pinned() != tc.pinned || tc.ref.String() != tc.str {
			t.Errorf("%+v: local %v pinned %v string %q", tc.ref, tc.ref.IsLocal(), tc.ref.Pinned(), tc.ref.String())
		}
	}
	if err := (Ref{Path: "x.wasm"}).ValidateRegistry(); !errors.Is(err, ErrLocalRef) {
		t.Errorf("a local ref validated for the registry: %v", err)
	}
	if err := (Ref{Name: "risk", Hash: "XYZ"}).ValidateRegistry(); !errors.Is(err, ErrRef) {
		t.Errorf("a bad hash validated: %v", err)
	}
	for h, want := range map[string]bool{full: true, full[:63]: false, full + "0": false, strings.ToUpper(full): false, strings.Repeat("g", 64): false} {
		if IsFullHash(h) != want {
			t.Errorf("IsFullHash(%q) = %v, want %v", h, !want, want)
		}
	}
}

// ParseRef reads pipeline files: for any input it either fails with ErrRef
// or returns a reference that prints back to an equivalent string and obeys
// the documented rule.
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"risk", "risk@3f2a9c1d", "risk@3F2A9C1D", "operator/risk.wasm", "x.wasm", "./x",
		"", "@", "risk@", "a@b@c", "risk.v2", strings.Repeat("a", 64), strings.Repeat("a", 65), "risk@" + strings.Repeat("f", 64)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ref, err := ParseRef(s)
		if err != nil {
			if !errors.Is(err, ErrRef) {
				t.Fatalf("ParseRef(%q): %v does not wrap ErrRef", s, err)
			}
			return
		}
		looksLocal := strings.Contains(s, "/") || strings.HasSuffix(s, ".wasm")
		if ref.IsLocal() != looksLocal {
			t.Fatalf("ParseRef(%q) = %+v: local %v, the rule says %v", s, ref, ref.IsLocal(), looksLocal)
		}
		if ref.IsLocal() {
			if ref.Path != s {
				t.Fatalf("ParseRef(%q) changed the path to %q", s, ref.Path)
			}
			return
		}
		if err := ref.ValidateRegistry(); err != nil {
			t.Fatalf("ParseRef(%q) = %+v, which does not validate: %v", s, ref, err)
		}
		again, err := ParseRef(ref.String())
		if err != nil || again != ref {
			t.Fatalf("ParseRef(%q) = %+v prints %q, which parses to %+v, %v", s, ref, ref.String(), again, err)
		}
	})
}
