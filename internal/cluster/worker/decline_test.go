package worker

import (
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
)

// TestDeclinedEndsOnlyItsRound: a decline of the checkpoint in progress,
// from one of its workers, gives up the round with the worker's reason; a
// decline of another checkpoint, generation or assignment, from a worker
// without tasks, or unreadable, is ignored.
func TestDeclinedEndsOnlyItsRound(t *testing.T) {
	tr := trigger{Checkpoint: 7, Generation: 3, Assignment: 5}
	workers := []string{"w0", "w1"}
	msg := func(d decline) *nats.Msg { return &nats.Msg{Data: mustJSON(d)} }
	err := declined(msg(decline{Checkpoint: 7, Generation: 3, Assignment: 5, Worker: "w1", Reason: "its tasks failed to start: x"}), tr, workers)
	if err == nil || !strings.Contains(err.Error(), "worker w1 cannot take part: its tasks failed to start: x") {
		t.Errorf("a decline of the round: %v", err)
	}
	for name, d := range map[string]decline{
		"another checkpoint":     {Checkpoint: 6, Generation: 3, Assignment: 5, Worker: "w1"},
		"another generation":     {Checkpoint: 7, Generation: 2, Assignment: 5, Worker: "w1"},
		"another assignment":     {Checkpoint: 7, Generation: 3, Assignment: 4, Worker: "w1"},
		"a worker without tasks": {Checkpoint: 7, Generation: 3, Assignment: 5, Worker: "w9"},
	} {
		if err := declined(msg(d), tr, workers); err != nil {
			t.Errorf("a decline of %s ended the round: %v", name, err)
		}
	}
	if err := declined(&nats.Msg{Data: []byte("{")}, tr, workers); err != nil {
		t.Errorf("an unreadable decline ended the round: %v", err)
	}
}
