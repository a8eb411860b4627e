package host

import (
	"context"
	"reflect"
	"testing"

	"github.com/wasmstream/wasmstream/abi"
)

// TestStateDeclare runs declare.wat: its ws_init declares two states (one
// twice) and checks every malformed declaration is BAD_ARGUMENT; its
// ws_process checks a late declaration is refused. The guest fails its call
// on any unexpected result, so a successful Instantiate and Process prove
// the codes, and Declarations must hold exactly the two valid ones.
func TestStateDeclare(t *testing.T) {
	for _, engine := range engines {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			m := compileFixture(t, newTestRuntime(t, engine, 64), "declare.wasm")
			inst, err := m.Instantiate(ctx, InstanceConfig{Operator: "declare"}, newMemState())
			if err != nil {
				t.Fatalf("instantiate: %v", err)
			}
			defer inst.Close(ctx)
			want := []StateDeclaration{
				{Name: "seen", Version: 2, TTLMillis: 120000, Flags: abi.DeclareReadAndWrite | abi.DeclareEventTime},
				{Name: "total", Version: 3, TTLMillis: abi.TTLNever},
			}
			if got := inst.Declarations(); !reflect.DeepEqual(got, want) {
				t.Fatalf("declarations:\n got %+v\nwant %+v", got, want)
			}
			if _, err := inst.Process(ctx, records("a", "b")); err != nil {
				t.Fatalf("process: %v", err)
			}
		})
	}
}
