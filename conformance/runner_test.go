package conformance

import (
	"bytes"
	"context"
	"encoding/binary"
	"strings"
	"testing"
)

// The runner on a hand-written module: outputs attributed to the case's
// record indices, state read back from Pebble, guest log captured.
func TestRunnerRecordsOutputsAndState(t *testing.T) {
	mod := compileWat(t, wellBehaved)
	c, err := ParseCase([]byte(`{"description":"d","operator":"dedup","batches":[
		[{"key":"a","value":"1"},{"key":"b","value":"2"}],
		[{"key":"a","value":"3"}]]}`))
	if err != nil {
		t.Fatal(err)
	}
	c.Name = "runner-test"
	var log bytes.Buffer
	got, err := (&Runner{Store: tempStore(t), Log: &log}).Run(context.Background(), mod, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Outputs) != 3 || got.Outputs[2].Batch != 1 || got.Outputs[2].Record != 0 || got.Outputs[2].Output != "out" {
		t.Fatalf("outputs %+v", got.Outputs)
	}
	if n := binary.LittleEndian.Uint64(got.State["a"]["n"]); n != 2 || len(got.State) != 2 {
		t.Fatalf("state %v", got.State)
	}
}

// A config the module refuses is a result (init_error), not a run failure.
func TestRunnerReportsInitErrors(t *testing.T) {
	c, err := ParseCase([]byte(minimalCase))
	if err != nil {
		t.Fatal(err)
	}
	c.Name = "runner-init"
	got, err := (&Runner{Store: tempStore(t)}).Run(context.Background(), compileWat(t, "init_rejects_config"), c)
	if err != nil {
		t.Fatal(err)
	}
	if got.InitError == nil || *got.InitError != (InitError{Kind: "init", Code: "GUEST_CONFIG"}) {
		t.Fatalf("init error %+v", got.InitError)
	}
	if len(got.Outputs) != 0 || len(got.DeadLetters) != 0 || len(got.State) != 0 {
		t.Fatalf("a failed init produced %+v", got)
	}
}

// A run that cannot complete is an error naming the batch.
func TestRunnerFailsOnFaultOutsideRecord(t *testing.T) {
	c, err := ParseCase([]byte(minimalCase))
	if err != nil {
		t.Fatal(err)
	}
	c.Name = "runner-fault"
	_, err = (&Runner{Store: tempStore(t)}).Run(context.Background(), compileWat(t, "state_before_record_next"), c)
	if err == nil || !strings.Contains(err.Error(), "batch 0") {
		t.Fatalf("got %v, want a batch 0 failure", err)
	}
}
