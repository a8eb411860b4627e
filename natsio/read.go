package natsio

import (
	"context"
	"fmt"
	"time"
)

// ReadSpec says which stored messages ReadStored visits.
type ReadSpec struct {
	Stream  string // "" = the stream whose subjects cover Subject
	Subject string // filter, wildcards allowed
	From    uint64 // first stream sequence (0 or 1 = the start)
	Follow  bool   // keep waiting for new messages until ctx ends
	// IdleWait is how long a fetch waits before ReadStored decides it has
	// reached the end (without Follow). Default 1s.
	IdleWait time.Duration
}

// ReadStored calls fn for each stored message matching spec, oldest first.
// Without Follow it returns once it reached the stream's last sequence as of
// the call, or a fetch found nothing for IdleWait.
func ReadStored(ctx context.Context, c *Conn, spec ReadSpec, fn func(Message) error) error {
	if spec.IdleWait <= 0 {
		spec.IdleWait = time.Second
	}
	name := spec.Stream
	if name == "" {
		found, err := c.JS.StreamNameBySubject(ctx, spec.Subject)
		if err != nil {
			return fmt.Errorf("no stream holds subject %q: %w (name one with --stream)", spec.Subject, err)
		}
		name = found
	}
	stream, err := c.JS.Stream(ctx, name)
	if err != nil {
		return fmt.Errorf("stream %q: %w", name, err)
	}
	last := stream.CachedInfo().State.LastSeq
	if !spec.Follow && (last == 0 || last < spec.From) {
		return nil
	}
	src, err := c.OpenSource(ctx, SourceSpec{Stream: name, FilterSubject: spec.Subject, StartSequence: max(spec.From, 1), AllowGap: true})
	if err != nil {
		return err
	}
	defer src.Close()
	for ctx.Err() == nil {
		msgs, err := src.Fetch(ctx, 256, spec.IdleWait)
		if err != nil {
			return err
		}
		for _, m := range msgs {
			if err := fn(m); err != nil {
				return err
			}
		}
		if spec.Follow {
			continue
		}
		if len(msgs) == 0 || msgs[len(msgs)-1].Sequence >= last {
			return nil
		}
	}
	return nil
}
