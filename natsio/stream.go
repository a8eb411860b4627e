package natsio

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
)

// Storage kinds accepted in StreamSpec.Storage.
const (
	StorageFile   = "file"
	StorageMemory = "memory"
)

// errCodeSubjectOverlap is JetStream's "subjects overlap with an existing
// stream" (JSStreamSubjectOverlapErr), which nats.go has no constant for.
const errCodeSubjectOverlap jetstream.ErrorCode = 10065

// StreamSpec declares a stream the pipeline uses.
type StreamSpec struct {
	Name     string
	Subjects []string
	// DuplicateWindow is how long JetStream remembers Nats-Msg-Id values;
	// 0 means the server default (2m). It must cover the replay window of
	// an idempotent sink.
	DuplicateWindow time.Duration
	// Storage is StorageFile (default, also "") or StorageMemory.
	Storage string
	// Retention is RetentionLimits (default, also ""), RetentionWorkQueue
	// or RetentionInterest. The last two remove a message once consumers
	// acknowledged it: pipelines read them with an AckingSource.
	Retention string
	// AllowAtomic makes a created stream accept atomic batch publish
	// (allow_atomic), and requires it of an existing one.
	AllowAtomic bool
	// Replicas is how many servers of a cluster keep the stream, 1 to
	// MaxReplicas; 0 means 1. An existing stream must have at least as many.
	Replicas int
}

// MaxReplicas is JetStream's largest stream replication factor.
const MaxReplicas = 5

// Stream retentions of StreamSpec.
const (
	RetentionLimits    = "limits"
	RetentionWorkQueue = "workqueue"
	RetentionInterest  = "interest"
)

// retentionPolicy maps a Retention word to JetStream's policy.
func retentionPolicy(word string) (jetstream.RetentionPolicy, error) {
	switch word {
	case "", RetentionLimits:
		return jetstream.LimitsPolicy, nil
	case RetentionWorkQueue:
		return jetstream.WorkQueuePolicy, nil
	case RetentionInterest:
		return jetstream.InterestPolicy, nil
	}
	return 0, fmt.Errorf("%w: retention %q is not %q, %q or %q", ErrInvalidStreamSpec, word, RetentionLimits, RetentionWorkQueue, RetentionInterest)
}

// Validate reports a spec that JetStream would reject, naming the field.
func (s StreamSpec) Validate() error {
	if !validStreamName(s.Name) {
		return fmt.Errorf("%w: stream name %q must be non-empty without spaces, '.', '*', '>', '/' or '\\'", ErrInvalidStreamSpec, s.Name)
	}
	if len(s.Subjects) == 0 {
		return fmt.Errorf("%w: stream %s declares no subjects", ErrInvalidStreamSpec, s.Name)
	}
	for _, subj := range s.Subjects {
		if !server.IsValidSubject(subj) {
			return fmt.Errorf("%w: stream %s: %q is not a valid subject", ErrInvalidStreamSpec, s.Name, subj)
		}
	}
	if s.DuplicateWindow < 0 {
		return fmt.Errorf("%w: stream %s: duplicate window %s is negative", ErrInvalidStreamSpec, s.Name, s.DuplicateWindow)
	}
	if _, err := s.storageType(); err != nil {
		return err
	}
	if s.Replicas < 0 || s.Replicas > MaxReplicas {
		return fmt.Errorf("%w: stream %s: replicas %d must be 1 to %d", ErrInvalidStreamSpec, s.Name, s.Replicas, MaxReplicas)
	}
	_, err := retentionPolicy(s.Retention)
	return err
}

func validStreamName(name string) bool {
	return name != "" && !strings.ContainsAny(name, " \t\r\n.*>/\\")
}

func (s StreamSpec) storageType() (jetstream.StorageType, error) {
	switch s.Storage {
	case "", StorageFile:
		return jetstream.FileStorage, nil
	case StorageMemory:
		return jetstream.MemoryStorage, nil
	}
	return 0, fmt.Errorf("%w: stream %s: storage %q must be %q or %q", ErrInvalidStreamSpec, s.Name, s.Storage, StorageFile, StorageMemory)
}

func (s StreamSpec) config() jetstream.StreamConfig {
	storage, _ := s.storageType()                // validated
	retention, _ := retentionPolicy(s.Retention) // validated
	return jetstream.StreamConfig{
		Name:       s.Name,
		Subjects:   s.Subjects,
		Duplicates: s.DuplicateWindow,
		Storage:    storage,
		Retention:  retention,
		Replicas:   s.replicas(),

		AllowAtomicPublish: s.AllowAtomic,
	}
}

// EnsureStream creates the stream when it is missing. An existing stream is
// left alone and its info returned, provided it covers every declared
// subject, has the declared storage and a duplicate window at least as long
// as declared; otherwise ErrStreamConflict lists the differences. It never
// changes an existing stream: that is an operator's decision.
func (c *Conn) EnsureStream(ctx context.Context, s StreamSpec) (*jetstream.StreamInfo, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	info, err := c.streamInfo(ctx, s.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		info, err = c.createStream(ctx, s)
		if !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return info, err
		}
		// Another process created it meanwhile: check theirs like any other.
		info, err = c.streamInfo(ctx, s.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("natsio: stream %s: %w", s.Name, err)
	}
	if diffs := streamDiffs(s, info.Config); len(diffs) > 0 {
		return nil, fmt.Errorf("%w: stream %s already exists and %s; change the pipeline's declaration "+
			"or change the stream yourself (nats stream edit / nats stream rm)", ErrStreamConflict, s.Name, strings.Join(diffs, "; "))
	}
	return info, nil
}

func (c *Conn) streamInfo(ctx context.Context, name string) (*jetstream.StreamInfo, error) {
	st, err := c.JS.Stream(ctx, name)
	if err != nil {
		return nil, err
	}
	return st.CachedInfo(), nil
}

func (c *Conn) createStream(ctx context.Context, s StreamSpec) (*jetstream.StreamInfo, error) {
	st, err := c.JS.CreateStream(ctx, s.config())
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) && apiErr.ErrorCode == errCodeSubjectOverlap {
		return nil, fmt.Errorf("%w: cannot create stream %s: its subjects %v overlap another stream's; "+
			"declare that stream instead, or choose subjects no other stream has", ErrStreamConflict, s.Name, s.Subjects)
	}
	if err != nil {
		return nil, err
	}
	return st.CachedInfo(), nil
}

func (s StreamSpec) replicas() int {
	if s.Replicas == 0 {
		return 1
	}
	return s.Replicas
}

// streamDiffs describes how an existing stream falls short of a spec.
func streamDiffs(s StreamSpec, have jetstream.StreamConfig) []string {
	var diffs []string
	for _, subj := range s.Subjects {
		if !subjectCovered(subj, have.Subjects) {
			diffs = append(diffs, fmt.Sprintf("its subjects %v do not cover %q", have.Subjects, subj))
		}
	}
	if want := s.config().Storage; have.Storage != want {
		diffs = append(diffs, fmt.Sprintf("its storage is %s, not %s", have.Storage, want))
	}
	if want := s.config().Retention; s.Retention != "" && have.Retention != want {
		diffs = append(diffs, fmt.Sprintf("its retention is %s, not %s", have.Retention, want))
	}
	if want := s.replicas(); have.Replicas < want {
		diffs = append(diffs, fmt.Sprintf("it has %d replica(s), fewer than the declared %d (raise them with nats stream edit %s --replicas %d)", have.Replicas, want, s.Name, want))
	}
	if s.AllowAtomic && !have.AllowAtomicPublish {
		diffs = append(diffs, "it does not allow atomic batch publish (allow_atomic is false; enable it with EnableAtomicPublish)")
	}
	if s.DuplicateWindow > 0 && have.Duplicates < s.DuplicateWindow {
		diffs = append(diffs, fmt.Sprintf("its duplicate window %s is shorter than the declared %s", have.Duplicates, s.DuplicateWindow))
	}
	return diffs
}

// subjectCovered reports whether every subject matching subj also matches
// one of filters.
func subjectCovered(subj string, filters []string) bool {
	for _, f := range filters {
		if server.SubjectMatchesFilter(subj, f) {
			return true
		}
	}
	return false
}
