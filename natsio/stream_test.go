package natsio

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

func TestEnsureStreamCreates(t *testing.T) {
	c := embedded(t)
	info, err := c.EnsureStream(testCtx(t), StreamSpec{Name: "PAY", Subjects: []string{"payments.>"}, DuplicateWindow: 5 * time.Minute, Storage: "memory"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := info.Config
	if cfg.Duplicates != 5*time.Minute || cfg.Storage != jetstream.MemoryStorage || cfg.Subjects[0] != "payments.>" {
		t.Fatalf("created config = %+v", cfg)
	}
	if info.Created.IsZero() {
		t.Fatal("no creation time")
	}
}

func TestEnsureStreamDefaults(t *testing.T) {
	c := embedded(t)
	info := ensureStream(t, c, "PAY", "payments.>")
	if info.Config.Duplicates != 2*time.Minute || info.Config.Storage != jetstream.FileStorage {
		t.Fatalf("defaults: duplicates %s, storage %s", info.Config.Duplicates, info.Config.Storage)
	}
}

func TestEnsureStreamLeavesExistingAlone(t *testing.T) {
	c := embedded(t)
	ctx := testCtx(t)
	// Created by someone else with more subjects and a longer window.
	_, err := c.JS.CreateStream(ctx, jetstream.StreamConfig{Name: "PAY", Subjects: []string{"payments.>", "refunds.>"}, Duplicates: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	publishSync(t, c, "payments.a", "x")
	info, err := c.EnsureStream(ctx, StreamSpec{Name: "PAY", Subjects: []string{"payments.eu.*"}, DuplicateWindow: time.Minute})
	if err != nil {
		t.Fatalf("compatible existing stream: %v", err)
	}
	if len(info.Config.Subjects) != 2 || info.Config.Duplicates != time.Hour || info.State.Msgs != 1 {
		t.Fatalf("existing stream was changed or not returned: %+v %+v", info.Config, info.State)
	}
}

func TestEnsureStreamConflicts(t *testing.T) {
	c := embedded(t)
	ctx := testCtx(t)
	_, err := c.JS.CreateStream(ctx, jetstream.StreamConfig{Name: "PAY", Subjects: []string{"payments.eu.>"}, Duplicates: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		spec StreamSpec
		want string
	}{
		{"subject not covered", StreamSpec{Subjects: []string{"payments.>"}}, `do not cover "payments.>"`},
		{"storage", StreamSpec{Subjects: []string{"payments.eu.x"}, Storage: "memory"}, "storage is File, not Memory"},
		{"shorter window", StreamSpec{Subjects: []string{"payments.eu.x"}, DuplicateWindow: time.Hour}, "duplicate window 1m0s is shorter than the declared 1h0m0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.spec.Name = "PAY"
			_, err := c.EnsureStream(ctx, tt.spec)
			if !errors.Is(err, ErrStreamConflict) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrStreamConflict containing %q", err, tt.want)
			}
		})
	}
	info, err := c.JS.Stream(ctx, "PAY")
	if err != nil {
		t.Fatal(err)
	}
	if cfg := info.CachedInfo().Config; cfg.Subjects[0] != "payments.eu.>" || cfg.Duplicates != time.Minute || cfg.Storage != jetstream.FileStorage {
		t.Fatalf("a conflicting EnsureStream changed the stream: %+v", cfg)
	}
}

func TestEnsureStreamOverlap(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "A", "orders.>")
	_, err := c.EnsureStream(testCtx(t), StreamSpec{Name: "B", Subjects: []string{"orders.eu"}})
	if !errors.Is(err, ErrStreamConflict) || !strings.Contains(err.Error(), "overlap") {
		t.Fatalf("err = %v, want ErrStreamConflict about overlap", err)
	}
}

func TestStreamSpecValidate(t *testing.T) {
	tests := []struct {
		name string
		spec StreamSpec
		want string
	}{
		{"no name", StreamSpec{Subjects: []string{"a"}}, "stream name"},
		{"dot in name", StreamSpec{Name: "a.b", Subjects: []string{"a"}}, "stream name"},
		{"no subjects", StreamSpec{Name: "A"}, "no subjects"},
		{"bad subject", StreamSpec{Name: "A", Subjects: []string{"a..b"}}, "not a valid subject"},
		{"bad storage", StreamSpec{Name: "A", Subjects: []string{"a"}, Storage: "disk"}, `storage "disk"`},
		{"negative window", StreamSpec{Name: "A", Subjects: []string{"a"}, DuplicateWindow: -1}, "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.spec.Validate()
			if !errors.Is(err, ErrInvalidStreamSpec) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate() = %v, want ErrInvalidStreamSpec containing %q", err, tt.want)
			}
		})
	}
	if err := (StreamSpec{Name: "A", Subjects: []string{"a.*", "b.>"}, Storage: "file"}).Validate(); err != nil {
		t.Fatalf("valid spec: %v", err)
	}
}
