package host

import (
	"reflect"
	"testing"
)

// TestShapeCount: each section's vector count lands in its own field, and
// the sections counted elsewhere or not at all change nothing.
func TestShapeCount(t *testing.T) {
	for id, want := range map[byte]Shape{
		secType:      {Types: 3},
		secImport:    {Imports: 3},
		secFunction:  {funcDecls: 3},
		secGlobal:    {Globals: 3},
		secExport:    {Exports: 3},
		secElement:   {Elements: 3},
		secCode:      {bodies: 3},
		secData:      {Datas: 3},
		secTag:       {Tags: 3},
		secCustom:    {},
		secTable:     {},
		secMemory:    {},
		secStart:     {},
		secDataCount: {},
		secTag + 1:   {},
	} {
		var s Shape
		s.count(id, 3)
		if !reflect.DeepEqual(s, want) {
			t.Errorf("count(%d, 3) = %+v, want %+v", id, s, want)
		}
	}
}
