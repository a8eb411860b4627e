package conformance

import (
	"reflect"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/abi"
)

func TestChangedVersions(t *testing.T) {
	decl := func(name string, version int32, flags uint32) Declaration {
		return Declaration{Name: Bytes(name), Version: version, Flags: flags}
	}
	migrates := uint32(abi.DeclareMigrates)
	tests := []struct {
		name          string
		old, declared []Declaration
		want          map[string]int32
		refused       string
	}{
		{"nothing declared", nil, nil, map[string]int32{}, ""},
		{"an undeclared state was version 1", nil, []Declaration{decl("total", 2, migrates)}, map[string]int32{"total": 1}, ""},
		{"from the old declaration", []Declaration{decl("total", 3, 0)}, []Declaration{decl("total", 4, migrates)}, map[string]int32{"total": 3}, ""},
		{"same version: nothing to migrate", []Declaration{decl("total", 2, 0)}, []Declaration{decl("total", 2, 0), decl("seen", 1, 0)}, map[string]int32{}, ""},
		{"a change without the flag is refused", nil, []Declaration{decl("total", 2, 0)}, nil, `state "total" changes from version 1 to 2`},
	}
	for _, tt := range tests {
		got, err := changedVersions(tt.old, tt.declared)
		switch {
		case tt.refused != "":
			if err == nil || !strings.Contains(err.Error(), tt.refused) {
				t.Errorf("%s: err %v, want one with %q", tt.name, err, tt.refused)
			}
		case err != nil || !reflect.DeepEqual(got, tt.want):
			t.Errorf("%s: got %v, %v, want %v", tt.name, got, err, tt.want)
		}
	}
}
