package natsio

import (
	"errors"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func TestParseBatchAck(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    batchAck
		wantErr bool
	}{
		{"staged", "", batchAck{}, false},
		{"committed", `{"stream":"OUT","seq":11,"batch":"b-0","count":10}`, batchAck{Stream: "OUT", Seq: 11, Batch: "b-0", Count: 10}, false},
		{"committed with domain", `{"stream":"OUT","domain":"hub","seq":3,"batch":"b","count":3}`, batchAck{Stream: "OUT", Seq: 3, Batch: "b", Count: 3}, false},
		{"duplicate", `{"stream":"OUT","seq":0,"error":{"code":400,"err_code":10201,"description":"atomic publish batch contains duplicate message id"}}`,
			batchAck{Stream: "OUT", Error: &jetstream.APIError{Code: 400, ErrorCode: 10201, Description: "atomic publish batch contains duplicate message id"}}, false},
		{"not json", `nope`, batchAck{}, true},
		{"error without code", `{"error":{}}`, batchAck{}, true},
		{"wrong type", `{"seq":"x"}`, batchAck{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseBatchAck([]byte(tt.data))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.wantErr {
				if !errors.Is(err, errBadBatchAck) {
					t.Fatalf("err = %v, want errBadBatchAck", err)
				}
				return
			}
			if got.Stream != tt.want.Stream || got.Seq != tt.want.Seq || got.Batch != tt.want.Batch || got.Count != tt.want.Count ||
				(got.Error == nil) != (tt.want.Error == nil) || (got.Error != nil && *got.Error != *tt.want.Error) {
				t.Fatalf("parseBatchAck = %+v (error %+v), want %+v", got, got.Error, tt.want)
			}
		})
	}
}

func TestCheckCommitAck(t *testing.T) {
	good := batchAck{Stream: "OUT", Seq: 11, Batch: "b", Count: 10}
	tests := []struct {
		name string
		ack  batchAck
		ok   bool
	}{
		{"good", good, true},
		{"other batch", batchAck{Stream: "OUT", Seq: 11, Batch: "c", Count: 10}, false},
		{"short count", batchAck{Stream: "OUT", Seq: 11, Batch: "b", Count: 9}, false},
		{"sequence below count", batchAck{Stream: "OUT", Seq: 9, Batch: "b", Count: 10}, false},
		{"no stream", batchAck{Seq: 11, Batch: "b", Count: 10}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkCommitAck(tt.ack, "b", 10); (err == nil) != tt.ok {
				t.Fatalf("checkCommitAck = %v, ok %v", err, tt.ok)
			}
		})
	}
}

// FuzzParseBatchAck feeds arbitrary server answers: parsing never panics,
// and whatever checkCommitAck accepts yields a sequence range inside the
// stream (first >= 1, first <= last).
func FuzzParseBatchAck(f *testing.F) {
	for _, seed := range []string{
		"",
		`{"stream":"OUT","seq":11,"batch":"b","count":10}`,
		`{"stream":"OUT","seq":0,"error":{"code":400,"err_code":10201,"description":"x"}}`,
		`{"stream":"OUT","seq":5,"batch":"b","count":10}`,
		`{"seq":18446744073709551615,"count":18446744073709551615,"batch":"b","stream":"S"}`,
		`{"error":null}`,
		`[]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := parseBatchAck(data)
		if err != nil || a.Error != nil {
			return
		}
		if checkCommitAck(a, a.Batch, int(a.Count)) != nil || a.Count == 0 {
			return
		}
		first, last := a.Seq-a.Count+1, a.Seq
		if first < 1 || first > last {
			t.Fatalf("accepted ack %+v gives range %d..%d", a, first, last)
		}
	})
}

func TestBatchMsgHeaders(t *testing.T) {
	caller := nats.Header{"Trace": {"t"}, server.JSBatchCommit: {"1"}, server.JSBatchId: {"forged"}}
	m := batchMsg("b", 4, OutMessage{Subject: "out.x", MsgID: "id", Data: []byte("d"), Header: caller}, false)
	if m.Header.Get(server.JSBatchId) != "b" || m.Header.Get(server.JSBatchSeq) != "5" || m.Header.Get(jetstream.MsgIDHeader) != "id" ||
		m.Header.Get("Trace") != "t" || m.Header.Get(server.JSBatchCommit) != "" {
		t.Fatalf("headers = %v", m.Header)
	}
	if len(caller) != 3 || caller.Get(server.JSBatchId) != "forged" {
		t.Fatalf("caller's header modified: %v", caller)
	}
	if c := batchMsg("b", 0, OutMessage{Subject: "out.x", MsgID: "id"}, true); c.Header.Get(server.JSBatchCommit) != batchCommitValue {
		t.Fatalf("commit headers = %v", c.Header)
	}
}
