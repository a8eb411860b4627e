// Package status reads what a cluster pipeline's workers are doing from
// the cluster itself, for `wasmstream status`: the coordinator, the
// members and their heartbeats, the assignment, the last completed
// checkpoint and how far each task's position is behind its source.
package status

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/cluster/member"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// Status is one reading of a cluster pipeline.
type Status struct {
	Pipeline    string    `json:"pipeline"`
	ReadAt      time.Time `json:"read_at"`
	Coordinator string    `json:"coordinator,omitempty"`
	// LeaseRevision is the coordinator lease's last revision (each renewal
	// moves it; the generation is the revision that acquired it).
	LeaseRevision uint64    `json:"coordinator_lease_revision,omitempty"`
	Workers       []Worker  `json:"workers"`
	Assignment    *Assigned `json:"assignment,omitempty"`
	Checkpoint    *Last     `json:"last_checkpoint,omitempty"`
}

// Worker is one member: it holds its membership lease; Alive says a
// heartbeat arrived while the status was read.
type Worker struct {
	ID    string `json:"id"`
	Alive bool   `json:"alive"`
	Tasks int    `json:"tasks"`
}

// Assigned is the assignment in force.
type Assigned struct {
	Epoch      uint64 `json:"epoch"`
	Generation uint64 `json:"generation"`
	Tasks      []Task `json:"tasks"`
}

// Task is one task's placement and, from the last checkpoint, its lag.
type Task struct {
	Operator string `json:"operator"`
	Index    int    `json:"task"`
	Range    string `json:"key_groups"`
	Worker   string `json:"worker"`
	// Lag is, per input source, the records of its stream after the
	// task's position in the last completed checkpoint.
	Lag map[string]uint64 `json:"lag_at_last_checkpoint,omitempty"`
}

// Last is the last completed cluster checkpoint.
type Last struct {
	ID         uint64            `json:"id"`
	Generation uint64            `json:"generation"`
	Assignment uint64            `json:"assignment"`
	Created    time.Time         `json:"created"`
	Positions  map[string]uint64 `json:"positions"`
}

// Read reads the status of cfg's pipeline from the control bucket and
// the Object Store, listening for heartbeats for listen.
func Read(ctx context.Context, nc *nats.Conn, js jetstream.JetStream, cfg *config.Pipeline, bucket, objects string, listen time.Duration) (Status, error) {
	s := Status{Pipeline: cfg.Name, ReadAt: time.Now().UTC()}
	b, err := lease.OpenBucket(ctx, js, bucket)
	if errors.Is(err, lease.ErrNotFound) {
		return s, fmt.Errorf("pipeline %q has no control bucket %s on this server: no worker has started yet (wasmstream worker %s)", cfg.Name, bucket, "PIPELINE.hcl")
	}
	if err != nil {
		return s, err
	}
	beats := listenHeartbeats(nc, cfg.Name)
	defer beats.stop()
	if err := s.readCoordinator(ctx, b); err != nil {
		return s, err
	}
	if err := s.readAssignment(ctx, b); err != nil {
		return s, err
	}
	if err := s.readCheckpoint(ctx, js, b, objects, cfg); err != nil {
		return s, err
	}
	members, err := memberIDs(ctx, b)
	if err != nil {
		return s, err
	}
	time.Sleep(listen)
	alive := beats.heard()
	for _, id := range members {
		s.Workers = append(s.Workers, Worker{ID: id, Alive: alive[id], Tasks: s.tasksOf(id)})
	}
	return s, nil
}

func (s *Status) readCoordinator(ctx context.Context, b *lease.Bucket) error {
	m, err := b.Get(ctx, "coordinator")
	if errors.Is(err, lease.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	s.Coordinator, _ = lease.HolderOf(m.Data)
	s.LeaseRevision = m.Sequence
	return nil
}

func (s *Status) readAssignment(ctx context.Context, b *lease.Bucket) error {
	a, err := ctlrec.ReadAssignment(ctx, b)
	if errors.Is(err, lease.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	s.Assignment = &Assigned{Epoch: a.Epoch, Generation: a.Generation}
	for _, o := range a.Operators {
		for i, t := range o.Tasks {
			s.Assignment.Tasks = append(s.Assignment.Tasks, Task{Operator: o.Name, Index: i, Range: t.Range.String(), Worker: t.Worker})
		}
	}
	return nil
}

// readCheckpoint reads the last completed checkpoint and the lag of
// every task behind its sources' streams now.
func (s *Status) readCheckpoint(ctx context.Context, js jetstream.JetStream, b *lease.Bucket, objects string, cfg *config.Pipeline) error {
	c, err := ctlrec.Latest(ctx, b)
	if errors.Is(err, lease.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	obs, err := js.ObjectStore(ctx, objects)
	if err != nil {
		return fmt.Errorf("object store %s: %w", objects, err)
	}
	m, err := global.ReadManifest(ctx, obs, c.Manifest, c.SHA256)
	if err != nil {
		return err
	}
	s.Checkpoint = &Last{ID: c.Checkpoint, Generation: c.Generation, Assignment: c.Assignment, Created: m.Checkpoint.Created, Positions: map[string]uint64{}}
	last := map[string]uint64{}
	for _, src := range m.Checkpoint.Sources {
		s.Checkpoint.Positions[src.Name] = src.LastSequence
		if st, err := js.Stream(ctx, src.Stream); err == nil {
			last[src.Name] = st.CachedInfo().State.LastSeq
		}
	}
	s.addLag(m, last)
	return nil
}

// addLag sets each assigned task's lag from the checkpoint's entries of
// its key groups (the highest lag of its entries).
func (s *Status) addLag(m global.Manifest, last map[string]uint64) {
	if s.Assignment == nil {
		return
	}
	for i := range s.Assignment.Tasks {
		t := &s.Assignment.Tasks[i]
		for _, p := range m.Tasks {
			if p.Operator != t.Operator || !within(p.Range().String(), t.Range) {
				continue
			}
			for src, pos := range p.Entry.Inputs {
				if t.Lag == nil {
					t.Lag = map[string]uint64{}
				}
				if l := last[src]; l > pos {
					t.Lag[src] = max(t.Lag[src], l-pos)
				} else if _, ok := t.Lag[src]; !ok {
					t.Lag[src] = 0
				}
			}
		}
	}
}

// within reports whether range text a lies inside range text b.
func within(a, b string) bool {
	var as, ae, bs, be int
	if _, err := fmt.Sscanf(a, "[%d,%d)", &as, &ae); err != nil {
		return false
	}
	if _, err := fmt.Sscanf(b, "[%d,%d)", &bs, &be); err != nil {
		return false
	}
	return as >= bs && ae <= be
}

func (s *Status) tasksOf(id string) int {
	if s.Assignment == nil {
		return 0
	}
	n := 0
	for _, t := range s.Assignment.Tasks {
		if t.Worker == id {
			n++
		}
	}
	return n
}

// memberIDs lists the workers holding a membership lease.
func memberIDs(ctx context.Context, b *lease.Bucket) ([]string, error) {
	lister, err := b.KV().ListKeysFiltered(ctx, member.Key("*"))
	if err != nil {
		return nil, err
	}
	var ids []string
	for k := range lister.Keys() {
		ids = append(ids, strings.TrimPrefix(k, member.Key("")))
	}
	slices.Sort(ids)
	return ids, nil
}

// heartbeats collects the ids heard on the pipeline's heartbeat subjects.
type heartbeats struct {
	mu   sync.Mutex
	seen map[string]bool
	sub  *nats.Subscription
}

func listenHeartbeats(nc *nats.Conn, pipeline string) *heartbeats {
	h := &heartbeats{seen: map[string]bool{}}
	prefix := member.HeartbeatSubject(pipeline, "")
	h.sub, _ = nc.Subscribe(member.HeartbeatSubject(pipeline, "*"), func(m *nats.Msg) {
		h.mu.Lock()
		h.seen[strings.TrimPrefix(m.Subject, prefix)] = true
		h.mu.Unlock()
	})
	return h
}

func (h *heartbeats) heard() map[string]bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.seen)
}

func (h *heartbeats) stop() {
	if h.sub != nil {
		_ = h.sub.Unsubscribe()
	}
}
