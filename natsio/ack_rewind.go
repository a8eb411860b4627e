package natsio

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// rewindConsumer moves the durable's delivery back to its acknowledgement
// floor, so that what an earlier process had delivered but not
// acknowledged comes again now instead of after AckWait, and checks the
// resume position against the floor and the stream. It returns the last
// sequence the source must acknowledge without delivering: the checkpoint
// already covers everything before spec.StartSequence.
func (c *Conn) rewindConsumer(ctx context.Context, st jetstream.Stream, spec AckingSourceSpec) (skipTo uint64, err error) {
	resp, err := st.ResetConsumer(ctx, spec.Durable)
	if err != nil {
		return 0, fmt.Errorf("natsio: resetting durable consumer %s on stream %s to its acknowledgement floor "+
			"(needs a nats-server with the consumer reset API, as v2.15.2 has): %w", spec.Durable, spec.Stream, err)
	}
	start, floor := spec.StartSequence, resp.AckFloor.Stream
	if start == 0 {
		return 0, nil
	}
	if floor >= start {
		return c.rewindBeforeFloor(ctx, st, spec, floor)
	}
	if spec.AllowGap {
		return start - 1, nil
	}
	state := st.CachedInfo().State
	if spec.FilterSubject == "" {
		pos := SourceSpec{Stream: spec.Stream, StartSequence: start, AcceptGapsThrough: spec.AcceptGapsThrough}
		if err := checkPosition(pos, state); err != nil {
			return 0, err
		}
	} else if start > state.LastSeq+1 {
		return 0, fmt.Errorf("%w: stream %s ends at sequence %d but the resume position is %d; was the stream deleted and created again?",
			ErrSequenceGap, spec.Stream, state.LastSeq, start)
	}
	return start - 1, nil
}

// rewindBeforeFloor handles a durable that acknowledged past the resume
// position: on WorkQueue and Interest streams acknowledged messages may be
// removed, so resuming is a gap unless the user accepts it.
func (c *Conn) rewindBeforeFloor(ctx context.Context, st jetstream.Stream, spec AckingSourceSpec, floor uint64) (uint64, error) {
	start := spec.StartSequence
	if !spec.AllowGap && floor > spec.AcceptGapsThrough {
		return 0, fmt.Errorf("%w: durable consumer %s on stream %s already acknowledged sequences up to %d, but the resume position is %d: "+
			"sequences %d..%d may be gone (was an older checkpoint restored?); restore them, or allow the gap explicitly",
			ErrSequenceGap, spec.Durable, spec.Stream, floor, start, start, floor)
	}
	if _, err := st.ResetConsumerToSequence(ctx, spec.Durable, start); err != nil {
		return 0, fmt.Errorf("natsio: resetting durable consumer %s on stream %s to sequence %d: %w", spec.Durable, spec.Stream, start, err)
	}
	return start - 1, nil
}
