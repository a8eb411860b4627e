package plugins

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/wasmgen"
)

// Push refuses a module over the host's module limits before compiling
// it, with the limit in the message: these shapes cost gigabytes in
// validation before the limits existed.
func TestValidateRefusesShapesOverTheHostLimits(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shape wasmgen.Shape
		lim   Limits
		hint  string
	}{
		{"functions", wasmgen.Shape{Functions: host.DefaultMaxFunctions}, Limits{}, "over the limit of 100000"},
		{"locals", wasmgen.Shape{Functions: 21, Locals: host.DefaultMaxFunctionLocals}, Limits{}, "locals in all"},
		{"code of one function", wasmgen.Shape{Functions: 1, BodyBytes: host.DefaultMaxFunctionBytes}, Limits{}, "split the function"},
		{"table without maximum over the limit", wasmgen.Shape{Table: true, TableMin: 11, TableMax: -1}, Limits{MaxTableElements: 10}, "limits.max_table_elements"},
		{"table maximum over the default", wasmgen.Shape{Table: true, TableMin: 1, TableMax: 1 << 27}, Limits{}, "declares a maximum of 134217728 elements"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Validate(context.Background(), wasmgen.Module(tc.shape), tc.lim)
			if !errors.Is(err, ErrTooLarge) || !errors.Is(err, host.ErrModuleLimit) || !strings.Contains(err.Error(), tc.hint) {
				t.Fatalf("got %v, want ErrTooLarge (host.ErrModuleLimit) saying %q", err, tc.hint)
			}
		})
	}
}

// A table without a maximum is accepted (Go's linker declares none): the
// host bounds it when it loads the module. Validate reads the memory from
// the module's structure, without decoding it apart from the compile.
func TestValidateAcceptsTableWithoutMaximum(t *testing.T) {
	info, err := Validate(context.Background(), wasmgen.Module(wasmgen.Shape{Table: true, TableMin: 6403, TableMax: -1}), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if info.MemoryMinPages != 1 || info.MemoryMaxPages != nil || len(info.Imports) != 0 {
		t.Fatalf("info %+v, want memory 1 page without maximum and no imports", info)
	}
}
