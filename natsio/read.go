package natsio

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// ReadSpec says which stored messages ReadStored visits.
type ReadSpec struct {
	Stream  string // "" = the one stream whose subjects cover Subject
	Subject string // filter, wildcards allowed
	From    uint64 // first stream sequence (0 or 1 = the start)
	Follow  bool   // keep waiting for new messages until ctx ends
	// IdleWait is how long one fetch waits for messages before ReadStored
	// asks the server whether any are left (without Follow). Default 1s.
	IdleWait time.Duration
}

// ReadStored calls fn for each stored message matching spec, oldest first.
// Without Follow it returns once the server has nothing left for it that
// was stored before the call: a slow first delivery does not end the read
// early. Without a stream named, Subject must be captured by exactly one
// stream.
func ReadStored(ctx context.Context, c *Conn, spec ReadSpec, fn func(Message) error) error {
	if spec.IdleWait <= 0 {
		spec.IdleWait = time.Second
	}
	name, err := readStream(ctx, c, spec)
	if err != nil {
		return err
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
	position := max(spec.From, 1) - 1
	for ctx.Err() == nil {
		msgs, err := src.Fetch(ctx, 256, spec.IdleWait)
		if err != nil {
			return err
		}
		for _, m := range msgs {
			if err := fn(m); err != nil {
				return err
			}
			position = m.Sequence
		}
		if spec.Follow {
			continue
		}
		if position >= last {
			return nil
		}
		if len(msgs) == 0 {
			if done, err := readAll(ctx, src, position); err != nil || done {
				return err
			}
		}
	}
	return nil
}

// readAll reports whether the source has nothing left after position.
func readAll(ctx context.Context, src *Source, position uint64) (bool, error) {
	b, err := src.Backlog(ctx, position)
	if err != nil {
		return false, err
	}
	return b.Empty(), nil
}

// readStream is the stream ReadStored reads: the named one, or the only
// one whose subjects capture spec.Subject.
func readStream(ctx context.Context, c *Conn, spec ReadSpec) (string, error) {
	if spec.Stream != "" {
		return spec.Stream, nil
	}
	var names []string
	lister := c.JS.StreamNames(ctx, jetstream.WithStreamListSubject(spec.Subject))
	for name := range lister.Name() {
		names = append(names, name)
	}
	if err := lister.Err(); err != nil && !errors.Is(err, jetstream.ErrEndOfData) {
		return "", fmt.Errorf("streams of subject %q: %w", spec.Subject, err)
	}
	switch len(names) {
	case 0:
		return "", fmt.Errorf("no stream holds subject %q: %w (name one with --stream)", spec.Subject, jetstream.ErrStreamNotFound)
	case 1:
		return names[0], nil
	}
	slices.Sort(names)
	return "", fmt.Errorf("subject %q is captured by %d streams (%s): name the one to read with --stream", spec.Subject, len(names), strings.Join(names, ", "))
}
