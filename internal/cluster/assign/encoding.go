package assign

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Version is the version of the assignment record's JSON encoding.
const Version = 1

// Key is the assignment record's key in the pipeline's control bucket.
const Key = "assignment"

// The wire types are the record's JSON layout. They are separate from
// Assignment so that the layout is fixed here, field by field, and a
// change to the Go types cannot change the record by accident.
type wireAssignment struct {
	Version    int            `json:"version"`
	Epoch      uint64         `json:"epoch"`
	Generation uint64         `json:"generation"`
	Operators  []wireOperator `json:"operators"`
}

type wireOperator struct {
	Name           string     `json:"name"`
	MaxParallelism int        `json:"max_parallelism"`
	Parallelism    int        `json:"parallelism"`
	Tasks          []wireTask `json:"tasks"`
}

type wireTask struct {
	Task    int    `json:"task"`
	Start   int    `json:"start"`
	End     int    `json:"end"`
	Worker  string `json:"worker"`
	Restore uint64 `json:"restore"`
}

// Encode returns a's record: JSON with a version, operators by name and
// tasks by index, so that equal assignments encode to equal bytes. It
// refuses an assignment that Decode would refuse.
func Encode(a Assignment) ([]byte, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	w := wireAssignment{Version: Version, Epoch: a.Epoch, Generation: a.Generation, Operators: []wireOperator{}}
	for _, o := range a.Operators {
		wo := wireOperator{Name: o.Name, MaxParallelism: o.MaxParallelism, Parallelism: len(o.Tasks)}
		for i, t := range o.Tasks {
			wo.Tasks = append(wo.Tasks, wireTask{Task: i, Start: t.Range.Start, End: t.Range.End, Worker: t.Worker, Restore: t.Restore})
		}
		w.Operators = append(w.Operators, wo)
	}
	return json.Marshal(w)
}

// Decode reads an assignment record. The bytes come from a bucket other
// clients can write, so it refuses unknown fields, other versions, data
// after the record and any assignment that breaks a rule (Validate).
func Decode(data []byte) (Assignment, error) {
	var w wireAssignment
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return Assignment{}, fmt.Errorf("%w: %w", ErrAssignment, err)
	}
	if dec.More() {
		return Assignment{}, fmt.Errorf("%w: data after the record", ErrAssignment)
	}
	if w.Version != Version {
		return Assignment{}, fmt.Errorf("%w: version %d, this wasmstream reads %d", ErrAssignment, w.Version, Version)
	}
	a, err := w.assignment()
	if err != nil {
		return Assignment{}, err
	}
	return a, a.Validate()
}

// assignment converts the wire form, checking what the Go types cannot
// hold: the explicit parallelism and task indexes.
func (w wireAssignment) assignment() (Assignment, error) {
	a := Assignment{Epoch: w.Epoch, Generation: w.Generation}
	for _, wo := range w.Operators {
		if wo.Parallelism != len(wo.Tasks) {
			return Assignment{}, fmt.Errorf("%w: operator %q has parallelism %d and %d tasks", ErrAssignment, wo.Name, wo.Parallelism, len(wo.Tasks))
		}
		o := OperatorTasks{Name: wo.Name, MaxParallelism: wo.MaxParallelism, Tasks: make([]Task, len(wo.Tasks))}
		for i, wt := range wo.Tasks {
			if wt.Task != i {
				return Assignment{}, fmt.Errorf("%w: operator %q lists task %d at position %d", ErrAssignment, wo.Name, wt.Task, i)
			}
			o.Tasks[i] = Task{Range: Range{Start: wt.Start, End: wt.End}, Worker: wt.Worker, Restore: wt.Restore}
		}
		a.Operators = append(a.Operators, o)
	}
	return a, nil
}
