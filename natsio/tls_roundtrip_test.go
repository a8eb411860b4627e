package natsio

import (
	"testing"
)

// roundTrip creates stream name on subject through c, publishes through a Sink and reads the
// record back through a Source: every JetStream context of c works.
func roundTrip(t *testing.T, c *Conn, name, subject string) {
	t.Helper()
	ensureStream(t, c, name, subject)
	sink := c.NewSink(8)
	defer sink.Close()
	if err := sink.Publish(testCtx(t), OutMessage{Subject: subject, Data: []byte(`{"n":1}`), MsgID: name + "-1"}); err != nil {
		t.Fatal(err)
	}
	if err := sink.Flush(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: name, StartSequence: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	got := fetchN(t, src, 1)
	if got[0].Subject != subject || string(got[0].Data) != `{"n":1}` {
		t.Fatalf("read %+v, want the published record on %s", got[0], subject)
	}
}
