package natsio

import (
	"errors"
	"reflect"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Publish replies of nats-server v2.15.2, captured by TestParsePubAckLive.
const (
	replyStored    = `{"stream":"OUT","seq":1}`
	replyDuplicate = `{"stream":"OUT","seq":1,"duplicate": true}`
	replyWrongSeq  = `{"error":{"code":400,"err_code":10071,"description":"wrong last sequence: 1"},"stream":"OUT","seq":0}`
)

func TestParsePubAck(t *testing.T) {
	wrongSeq := &jetstream.APIError{Code: 400, ErrorCode: jetstream.JSErrCodeStreamWrongLastSequence, Description: "wrong last sequence: 1"}
	for _, c := range []struct {
		reply   string
		want    pubAck
		wantErr error
		fast    bool // read without encoding/json
	}{
		{reply: replyStored, want: pubAck{Sequence: 1}, fast: true},
		{reply: replyDuplicate, want: pubAck{Sequence: 1, Duplicate: true}, fast: true},
		{reply: replyWrongSeq, wantErr: wrongSeq},
		{reply: `{"stream":"OUT","seq":18446744073709551615,"domain":"hub"}`, want: pubAck{Sequence: 1<<64 - 1}, fast: true},
		{reply: ` {"seq":2, "stream":"OUT", "duplicate":false, "batch":"b", "count":3} `, want: pubAck{Sequence: 2}, fast: true},
		{reply: `{"stream":"OUT","seq":1,"val":"10"}`, want: pubAck{Sequence: 1}, fast: true},
		{reply: `{"stream":"OUT","seq":1,"Duplicate":true}`, want: pubAck{Sequence: 1, Duplicate: true}},
		{reply: `{"stream":"O\u0055T","seq":1}`, want: pubAck{Sequence: 1}},
		{reply: `{"stream":"OUT","seq":1,"error":null}`, want: pubAck{Sequence: 1}},
		{reply: `{"stream":"OUT","seq":18446744073709551616}`, wantErr: jetstream.ErrInvalidJSAck},
		{reply: `{"stream":"OUT","seq":1.0}`, wantErr: jetstream.ErrInvalidJSAck},
		{reply: `{"stream":"OUT","seq":-1}`, wantErr: jetstream.ErrInvalidJSAck},
		{reply: `{"stream":"OUT","seq":"1"}`, wantErr: jetstream.ErrInvalidJSAck},
		{reply: `{"stream":"OUT","seq":1,"duplicate":"yes"}`, wantErr: jetstream.ErrInvalidJSAck},
		{reply: `{"stream":"","seq":1}`, wantErr: jetstream.ErrInvalidJSAck},
		{reply: `{"seq":1}`, wantErr: jetstream.ErrInvalidJSAck},
		{reply: `{"stream":"OUT","stream":"","seq":1}`, wantErr: jetstream.ErrInvalidJSAck},
		{reply: `{"stream":"OUT","seq":1}x`, wantErr: jetstream.ErrInvalidJSAck},
		{reply: `{"stream":"OUT","seq":1`, wantErr: jetstream.ErrInvalidJSAck},
		{reply: `[]`, wantErr: jetstream.ErrInvalidJSAck},
		{reply: ``, wantErr: jetstream.ErrInvalidJSAck},
	} {
		got, err := parsePubAck([]byte(c.reply))
		if got != c.want || !sameAckError(err, c.wantErr) {
			t.Errorf("parsePubAck(%s) = %+v, %v; want %+v, %v", c.reply, got, err, c.want, c.wantErr)
		}
		if _, fast := scanPubAck([]byte(c.reply)); fast != c.fast {
			t.Errorf("%s: read without encoding/json: %v, want %v", c.reply, fast, c.fast)
		}
	}
}

// TestParsePubAckLive reads the replies of a real server: stored,
// duplicate, and refused.
func TestParsePubAckLive(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "OUT", "out.>")
	for _, r := range []struct {
		header  nats.Header
		want    pubAck
		wantErr error
	}{
		{nats.Header{jetstream.MsgIDHeader: {"a"}}, pubAck{Sequence: 1}, nil},
		{nats.Header{jetstream.MsgIDHeader: {"a"}}, pubAck{Sequence: 1, Duplicate: true}, nil},
		{nats.Header{jetstream.ExpectedLastSeqHeader: {"7"}}, pubAck{}, &jetstream.APIError{Code: 400, ErrorCode: jetstream.JSErrCodeStreamWrongLastSequence}},
	} {
		reply, err := c.NC.RequestMsg(&nats.Msg{Subject: "out.x", Header: r.header}, testTimeout)
		if err != nil {
			t.Fatal(err)
		}
		got, err := parsePubAck(reply.Data)
		if got != r.want || !errors.Is(err, r.wantErr) || (err == nil) != (r.wantErr == nil) {
			t.Errorf("reply %s: %+v, %v; want %+v, %v", reply.Data, got, err, r.want, r.wantErr)
		}
		dgot, derr := decodePubAck(reply.Data)
		if dgot != got || !sameAckError(derr, err) {
			t.Errorf("reply %s: encoding/json reads %+v, %v", reply.Data, dgot, derr)
		}
	}
}

// FuzzParsePubAck: parsePubAck answers what encoding/json with nats.go's
// types answers, for any reply.
func FuzzParsePubAck(f *testing.F) {
	for _, s := range []string{replyStored, replyDuplicate, replyWrongSeq, `{"stream":"X","seq":0,"domain":"d","val":"1","type":"t"}`,
		`{"STREAM":"X","seq":1}`, `{"ſtream":"X","seq":1}`, `{"stream":"X","seq":1e2}`, `{"stream":"\ud800","seq":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := parsePubAck(data)
		want, wantErr := decodePubAck(data)
		if got != want || !sameAckError(err, wantErr) {
			t.Fatalf("parsePubAck(%q) = %+v, %v; encoding/json: %+v, %v", data, got, err, want, wantErr)
		}
	})
}

// sameAckError compares publish reply errors: the same sentinel, or equal
// API errors.
func sameAckError(a, b error) bool {
	var aa, ba *jetstream.APIError
	if errors.As(a, &aa) && errors.As(b, &ba) {
		return reflect.DeepEqual(aa, ba)
	}
	return a == b
}

// BenchmarkParsePubAck compares reading a duplicate's reply with and
// without encoding/json.
func BenchmarkParsePubAck(b *testing.B) {
	data := []byte(replyDuplicate)
	for _, impl := range []struct {
		name string
		f    func([]byte) (pubAck, error)
	}{{"scan", parsePubAck}, {"encoding-json", decodePubAck}} {
		b.Run(impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if ack, err := impl.f(data); err != nil || !ack.Duplicate {
					b.Fatal(ack, err)
				}
			}
		})
	}
}
