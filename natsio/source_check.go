package natsio

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// identityCheckInterval is how often a source checks, while it runs, that
// its stream is still the one it started on. Before it delivers anything
// from a new consumer it checks anyway; this catches a stream recreated
// while the source waits (the new stream has not reached the position, so
// nothing arrives). A variable for tests.
var identityCheckInterval = 5 * time.Second

// Checks against the server: each request is bounded, and the pump tries a
// few times before it gives up, because it must not deliver unchecked.
const (
	streamCheckTimeout  = 10 * time.Second
	streamCheckAttempts = 3
	streamCheckPause    = time.Second
)

// checkStream runs, before a message is delivered, the checks that need the
// server: the stream's identity when the message comes from a consumer the
// source has not seen (the first one, or one nats.go created after a reset,
// which after a deletion reads the stream created again), and, at the first
// delivery of a resumed filtered source, the sequences it skips.
func (s *Source) checkStream(consumer string, seq uint64) error {
	skipped := s.checkFirst && seq > s.last+1
	s.checkFirst = false
	if consumer == s.consumer && !skipped {
		return nil
	}
	var opts []jetstream.StreamInfoOpt
	if skipped {
		opts = append(opts, jetstream.WithDeletedDetails(true))
	}
	info, err := s.streamInfo(streamCheckAttempts, opts...)
	if err != nil {
		return err
	}
	if err := checkCreated(s.identity.Stream, s.identity.Created, info.Created); err != nil {
		return err
	}
	s.consumer = consumer
	if !skipped {
		return nil
	}
	if removed := accepted(removedIn(info.State, s.last+1, seq-1), s.acceptThrough); len(removed) > 0 {
		return removedError(s.identity.Stream, removed, s.last+1)
	}
	return nil
}

// watch checks the stream's identity every interval until the source
// stops. A changed or deleted stream stops the source; a failed request is
// no verdict (the pump checks again before it delivers from a new consumer).
// In between it wakes a pump that nats.go left waiting (source_wake.go).
func (s *Source) watch() {
	defer close(s.watched)
	tick := time.NewTicker(s.interval)
	defer tick.Stop()
	wake := time.NewTicker(s.wakeInterval)
	defer wake.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-s.done:
			return
		case <-wake.C:
			s.checkWake()
			continue
		case <-tick.C:
		}
		if err := s.streamChanged(streamCheckAttempts); err != nil {
			s.failWith(err)
			return
		}
	}
}

// streamChanged returns ErrStreamRecreated or ErrStreamNotFound when the
// stream is not the source's any more, nil when it is or the check failed.
func (s *Source) streamChanged(attempts int) error {
	info, err := s.streamInfo(attempts)
	if err == nil {
		err = checkCreated(s.identity.Stream, s.identity.Created, info.Created)
	}
	if errors.Is(err, ErrStreamRecreated) || errors.Is(err, ErrStreamNotFound) {
		return err
	}
	return nil
}

// failWith stops the source with err.
func (s *Source) failWith(err error) {
	s.failMu.Lock()
	if s.failure == nil {
		s.failure = err
	}
	s.failMu.Unlock()
	s.iter.Stop()
}

func (s *Source) failed() error {
	s.failMu.Lock()
	defer s.failMu.Unlock()
	return s.failure
}

// streamInfo asks for the stream's info, up to attempts times a pause
// apart. A stream not found is asked for again too: one deleted and created
// again (nats stream rm, nats stream add) is then reported as recreated,
// with both creation times. A closed connection ends the attempts.
func (s *Source) streamInfo(attempts int, opts ...jetstream.StreamInfoOpt) (*jetstream.StreamInfo, error) {
	var err error
	for attempt := 0; attempt < attempts; attempt++ {
		if attempt > 0 {
			select {
			case <-time.After(streamCheckPause):
			case <-s.ctx.Done():
				return nil, ErrSourceClosed
			}
		}
		ctx, cancel := context.WithTimeout(s.ctx, streamCheckTimeout)
		var info *jetstream.StreamInfo
		info, err = s.st.Info(ctx, opts...)
		cancel()
		switch {
		case err == nil:
			return info, nil
		case s.ctx.Err() != nil:
			return nil, ErrSourceClosed
		case errors.Is(err, nats.ErrConnectionClosed):
			attempts = 0 // ends the loop
		}
	}
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, fmt.Errorf("%w: source stream %s (created %s) was deleted while the source read it",
			ErrStreamNotFound, s.identity.Stream, s.identity.Created.Format(time.RFC3339Nano))
	}
	return nil, fmt.Errorf("natsio: source stream %s: cannot check that it is still the stream the source started on: %w", s.identity.Stream, err)
}

// checkCreated fails with ErrStreamRecreated unless the stream was created
// at want (zero: anything goes).
func checkCreated(stream string, want, created time.Time) error {
	if want.IsZero() || created.Equal(want) {
		return nil
	}
	return fmt.Errorf("%w: source stream %s: the source's position belongs to the stream created %s, but the stream now is one created %s, "+
		"whose sequences have nothing to do with that position; nothing of the new stream was delivered",
		ErrStreamRecreated, stream, want.Format(time.RFC3339Nano), created.Format(time.RFC3339Nano))
}

// checkRemoved refuses a resume position after which the stream no longer
// holds messages it stored (deleted, purged by subject, or removed by a
// per-subject limit) beyond the accepted gaps. A removed message's subject
// is unknown, so with a filter too it may have been one to read.
func checkRemoved(ctx context.Context, st jetstream.Stream, spec SourceSpec) error {
	if spec.StartSequence <= 1 {
		return nil
	}
	removed, err := RemovedSequences(ctx, st, spec.StartSequence)
	if err != nil {
		return fmt.Errorf("natsio: source stream %s: %w", spec.Stream, err)
	}
	if removed = accepted(removed, spec.AcceptGapsThrough); len(removed) > 0 {
		return removedError(spec.Stream, removed, spec.StartSequence)
	}
	return nil
}

func removedError(stream string, removed []uint64, from uint64) error {
	return fmt.Errorf("%w: stream %s: sequences %s were removed before this source read them (the resume position is %d): "+
		"deleted, purged by subject or by a per-subject limit; a removed message's subject is unknown, so each may have been one to read. "+
		"Restore them, or accept the gap explicitly", ErrSequenceGap, stream, FormatSequences(removed), from)
}

// RemovedSequences lists, ascending, the sequences from from on that
// stream st stored and no longer holds although later ones remain or the
// stream remembers its last sequence: deleted messages, subject purges,
// per-subject limits. Removals at the front of the stream are not listed:
// the stream's first sequence tells those. It asks for the stream's deleted
// details only when st's info (look it up just before) counts deleted
// messages, so a stream without any costs no request.
func RemovedSequences(ctx context.Context, st jetstream.Stream, from uint64) ([]uint64, error) {
	if st.CachedInfo().State.NumDeleted == 0 {
		return nil, nil
	}
	info, err := st.Info(ctx, jetstream.WithDeletedDetails(true))
	if err != nil {
		return nil, fmt.Errorf("deleted sequences of stream %s: %w", st.CachedInfo().Config.Name, err)
	}
	return removedIn(info.State, from, info.State.LastSeq), nil
}

// removedIn returns the deleted sequences of state in from..to, ascending.
func removedIn(state jetstream.StreamState, from, to uint64) []uint64 {
	var out []uint64
	for _, seq := range state.Deleted {
		if seq >= from && seq <= to {
			out = append(out, seq)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// accepted drops the sequences up to through: gaps the user accepted.
func accepted(seqs []uint64, through uint64) []uint64 {
	i, _ := slices.BinarySearch(seqs, through+1)
	return seqs[i:]
}

// maxRangesShown bounds how many runs of sequences an error message lists.
const maxRangesShown = 8

// FormatSequences writes ascending sequences as runs ("6..7, 12"), at
// most a few of them, then how many sequences are left out.
func FormatSequences(seqs []uint64) string {
	var b strings.Builder
	runs, i := 0, 0
	for i < len(seqs) && runs < maxRangesShown {
		j := i
		for j+1 < len(seqs) && seqs[j+1] == seqs[j]+1 {
			j++
		}
		if runs > 0 {
			b.WriteString(", ")
		}
		if j == i {
			fmt.Fprintf(&b, "%d", seqs[i])
		} else {
			fmt.Fprintf(&b, "%d..%d", seqs[i], seqs[j])
		}
		runs, i = runs+1, j+1
	}
	if left := len(seqs) - i; left > 0 {
		fmt.Fprintf(&b, " and %d more", left)
	}
	return b.String()
}
