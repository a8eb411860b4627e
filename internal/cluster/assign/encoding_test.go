package assign

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// golden is the record of goldenAssignment. It is the format: a change to
// it is a format change, which needs a new Version.
const golden = `{"version":1,"epoch":3,"generation":7,"operators":[` +
	`{"name":"a","max_parallelism":5,"parallelism":2,"tasks":[` +
	`{"task":0,"start":0,"end":2,"worker":"w1","restore":0},{"task":1,"start":2,"end":5,"worker":"w2","restore":4}]},` +
	`{"name":"b","max_parallelism":1,"parallelism":1,"tasks":[{"task":0,"start":0,"end":1,"worker":"w2","restore":4}]}]}`

var goldenAssignment = Assignment{Epoch: 3, Generation: 7, Operators: []OperatorTasks{
	{Name: "a", MaxParallelism: 5, Tasks: []Task{{Range{0, 2}, "w1", 0}, {Range{2, 5}, "w2", 4}}},
	{Name: "b", MaxParallelism: 1, Tasks: []Task{{Range{0, 1}, "w2", 4}}},
}}

func TestEncodeGolden(t *testing.T) {
	got, err := Encode(goldenAssignment)
	if err != nil || string(got) != golden {
		t.Fatalf("Encode = %s, %v\nwant %s", got, err, golden)
	}
	a, err := Decode([]byte(golden))
	if err != nil || !reflect.DeepEqual(a, goldenAssignment) {
		t.Fatalf("Decode = %+v, %v", a, err)
	}
}

func TestEncodeRefusesInvalid(t *testing.T) {
	a := goldenAssignment
	a.Operators = []OperatorTasks{a.Operators[1], a.Operators[0]}
	if _, err := Encode(a); !errors.Is(err, ErrAssignment) {
		t.Errorf("Encode of unsorted operators: err = %v", err)
	}
}

// TestDecodeRefusals changes the golden record in one place each.
func TestDecodeRefusals(t *testing.T) {
	cases := map[string][2]string{ // name: {old, new}
		"unknown field":           {`"epoch":3,`, `"epoch":3,"extra":1,`},
		"unknown task field":      {`"restore":0}`, `"restore":0,"x":1}`},
		"other version":           {`"version":1`, `"version":2`},
		"epoch 0":                 {`"epoch":3`, `"epoch":0`},
		"generation 0":            {`"generation":7`, `"generation":0`},
		"negative epoch":          {`"epoch":3`, `"epoch":-3`},
		"gap":                     {`"start":2,"end":5`, `"start":3,"end":5`},
		"overlap":                 {`"start":0,"end":2`, `"start":0,"end":3`},
		"short of max":            {`"start":2,"end":5`, `"start":2,"end":4`},
		"not the task's range":    {`"end":2,"worker":"w1"`, `"end":3,"worker":"w1"`},
		"empty worker":            {`"worker":"w1"`, `"worker":""`},
		"no worker":               {`"worker":"w1",`, ``},
		"parallelism mismatch":    {`"parallelism":2`, `"parallelism":3`},
		"task index":              {`{"task":1,`, `{"task":0,`},
		"unsorted operators":      {`"name":"b"`, `"name":"0"`},
		"duplicate operator":      {`"name":"b"`, `"name":"a"`},
		"operator without name":   {`"name":"a"`, `"name":""`},
		"max parallelism 0":       {`"max_parallelism":1`, `"max_parallelism":0`},
		"max parallelism too big": {`"max_parallelism":5`, `"max_parallelism":32769`},
		"no tasks":                {`"parallelism":1,"tasks":[{"task":0,"start":0,"end":1,"worker":"w2","restore":4}]`, `"parallelism":0,"tasks":[]`},
		"trailing data":           {`]}]}`, `]}]} {}`},
		"not json":                {golden, `assignment 3`},
		"string epoch":            {`"epoch":3`, `"epoch":"3"`},
	}
	for name, c := range cases {
		if !strings.Contains(golden, c[0]) {
			t.Fatalf("%s: %q is not in the golden record", name, c[0])
		}
		data := strings.Replace(golden, c[0], c[1], 1)
		if _, err := Decode([]byte(data)); !errors.Is(err, ErrAssignment) {
			t.Errorf("%s: err = %v, want ErrAssignment", name, err)
		}
	}
}

// FuzzDecode: Decode never panics, accepts only valid assignments, and
// what it accepts encodes to bytes that decode to the same assignment and
// encode to the same bytes (the encoding is canonical).
func FuzzDecode(f *testing.F) {
	f.Add([]byte(golden))
	f.Add([]byte(`{"version":1,"epoch":1,"generation":1,"operators":[]}`))
	big, _ := Encode(mustPlanF(f))
	f.Add(big)
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Decode(data)
		if err != nil {
			if !errors.Is(err, ErrAssignment) {
				t.Fatalf("error %v is not ErrAssignment", err)
			}
			return
		}
		if err := a.Validate(); err != nil {
			t.Fatalf("accepted an invalid assignment: %v", err)
		}
		enc, err := Encode(a)
		if err != nil {
			t.Fatalf("Encode of a decoded assignment: %v", err)
		}
		b, err := Decode(enc)
		if err != nil {
			t.Fatalf("Decode of an encoding: %v", err)
		}
		again, _ := Encode(b)
		if !bytes.Equal(enc, again) {
			t.Fatalf("encoding not canonical:\n%s\n%s", enc, again)
		}
	})
}

// mustPlanF plans a few operators on three workers for the fuzz corpus.
func mustPlanF(f *testing.F) Assignment {
	a, _, err := Plan(nil, []Operator{{"a", 128, 4}, {"b", 16, 3}, {"c", 7, 7}}, w123, Stamp{Generation: 2, Restore: 1})
	if err != nil {
		f.Fatal(err)
	}
	return a
}
