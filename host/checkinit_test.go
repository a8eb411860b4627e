package host

import (
	"context"
	"errors"
	"testing"

	"github.com/wasmstream/wasmstream/abi"
)

// CheckInit returns what ws_init declared, and the guest errors of a
// ws_init that fails: one that emits (no record is current), one that
// rejects its config, one that traps.
func TestCheckInit(t *testing.T) {
	ctx := context.Background()
	rt := newTestRuntime(t, EngineInterpreter, 64)
	decls, err := compileFixture(t, rt, "declare.wasm").CheckInit(ctx, InstanceConfig{Operator: "declare"})
	if err != nil || len(decls) != 2 || decls[0].Name != "seen" || decls[1].Name != "total" {
		t.Fatalf("declare.wasm: %+v, %v; want its two declarations", decls, err)
	}
	m := compileFixture(t, rt, "hostile.wasm")
	for _, tc := range []struct {
		name string
		mode byte
		kind error
		code abi.Code
	}{
		{"emit in ws_init", 11, ErrABIMisuse, abi.ErrNoRecord},
		{"config rejected", 34, ErrInit, abi.ErrGuestConfig},
		{"trap in ws_init", 33, ErrInit, abi.OK},
	} {
		_, err := m.CheckInit(ctx, InstanceConfig{Operator: "hostile", Config: []byte{tc.mode}, Outputs: []string{"out"}})
		var ge *GuestError
		if !errors.As(err, &ge) || !errors.Is(err, tc.kind) || ge.Code != tc.code {
			t.Errorf("%s: %v, want %v with code %s", tc.name, err, tc.kind, tc.code)
		}
	}
	if _, err := m.CheckInit(ctx, InstanceConfig{Operator: "hostile"}); err != nil {
		t.Fatalf("a well-behaved ws_init: %v", err)
	}
}
