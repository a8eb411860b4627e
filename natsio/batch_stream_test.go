package natsio

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestEnsureAtomicStream(t *testing.T) {
	c := embedded(t)
	spec := StreamSpec{Name: "OUT", Subjects: []string{"out.>"}, DuplicateWindow: 10 * time.Minute}
	info, err := c.EnsureAtomicStream(testCtx(t), spec)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Config.AllowAtomicPublish || info.Config.Duplicates != 10*time.Minute {
		t.Fatalf("created config: allow_atomic %v, duplicates %s", info.Config.AllowAtomicPublish, info.Config.Duplicates)
	}
	if _, err := c.EnsureAtomicStream(testCtx(t), spec); err != nil {
		t.Fatalf("second EnsureAtomicStream: %v", err)
	}
	// The plain declaration accepts the atomic stream too.
	if _, err := c.EnsureStream(testCtx(t), spec); err != nil {
		t.Fatalf("EnsureStream on the atomic stream: %v", err)
	}
}

func TestEnsureAtomicStreamRefusesExistingWithoutAllowAtomic(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "PLAIN", "plain.>")
	_, err := c.EnsureAtomicStream(testCtx(t), StreamSpec{Name: "PLAIN", Subjects: []string{"plain.>"}})
	if !errors.Is(err, ErrStreamConflict) || !strings.Contains(err.Error(), "allow_atomic") || !strings.Contains(err.Error(), "EnableAtomicPublish") {
		t.Fatalf("err = %v, want ErrStreamConflict about allow_atomic", err)
	}
	info, err := c.EnableAtomicPublish(testCtx(t), "PLAIN")
	if err != nil || !info.Config.AllowAtomicPublish {
		t.Fatalf("EnableAtomicPublish = %v", err)
	}
	if _, err := c.EnsureAtomicStream(testCtx(t), StreamSpec{Name: "PLAIN", Subjects: []string{"plain.>"}}); err != nil {
		t.Fatalf("after EnableAtomicPublish: %v", err)
	}
	if _, err := c.EnableAtomicPublish(testCtx(t), "PLAIN"); err != nil {
		t.Fatalf("EnableAtomicPublish twice: %v", err)
	}
}

func TestEnsureAtomicStreamReportsOtherDifferences(t *testing.T) {
	c := embedded(t)
	ensureAtomicStream(t, c, "OUT", "out.a")
	_, err := c.EnsureAtomicStream(testCtx(t), StreamSpec{Name: "OUT", Subjects: []string{"out.b"}})
	if !errors.Is(err, ErrStreamConflict) || !strings.Contains(err.Error(), `"out.b"`) || strings.Contains(err.Error(), "allow_atomic is false") {
		t.Fatalf("err = %v, want a conflict about the subject only", err)
	}
	_, err = c.EnsureAtomicStream(testCtx(t), StreamSpec{Name: "OTHER", Subjects: []string{"out.a"}})
	if !errors.Is(err, ErrStreamConflict) || !strings.Contains(err.Error(), "overlap") {
		t.Fatalf("overlapping subjects: err = %v", err)
	}
	if _, err := c.EnsureAtomicStream(testCtx(t), StreamSpec{Name: "bad.name", Subjects: []string{"x"}}); !errors.Is(err, ErrInvalidStreamSpec) {
		t.Fatalf("invalid spec: err = %v", err)
	}
}

func TestEnableAtomicPublishMissingStream(t *testing.T) {
	c := embedded(t)
	if _, err := c.EnableAtomicPublish(testCtx(t), "NONE"); !errors.Is(err, ErrStreamNotFound) {
		t.Fatalf("err = %v, want ErrStreamNotFound", err)
	}
}
