package conformance

import (
	"fmt"
	"testing"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
)

func TestKindNamesRoundTrip(t *testing.T) {
	for _, name := range KindNames() {
		err, ok := KindError(name)
		if !ok || KindName(err) != name {
			t.Errorf("kind %q does not round-trip", name)
		}
		wrapped := &host.GuestError{Kind: err}
		if KindName(fmt.Errorf("context: %w", wrapped)) != name {
			t.Errorf("kind %q is not found through wrapping", name)
		}
	}
	if _, ok := KindError("nope"); ok {
		t.Error("unknown kind accepted")
	}
	if KindName(fmt.Errorf("plain")) != "" {
		t.Error("a plain error has a kind")
	}
}

func TestCodesRoundTrip(t *testing.T) {
	for _, c := range []abi.Code{abi.OK, abi.ErrNotFound, abi.ErrReentrant, abi.ErrGuestConfig, abi.ErrGuestRecord, abi.ErrGuestInternal, 7, -55} {
		got, err := ParseCode(CodeName(c))
		if err != nil || got != c {
			t.Errorf("code %v: CodeName %q parses to %v, %v", c, CodeName(c), got, err)
		}
	}
	for in, want := range map[string]abi.Code{"-": abi.OK, "OK": abi.OK, "GUEST_CONFIG": abi.ErrGuestConfig, "-101": abi.ErrGuestRecord} {
		if got, err := ParseCode(in); err != nil || got != want {
			t.Errorf("ParseCode(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseCode("GUEST_CONFUSED"); err == nil {
		t.Error("unknown code name accepted")
	}
}
