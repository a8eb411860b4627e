package natsio

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestDuplicateWindow(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "DEFAULT", "d.>")
	if _, err := c.EnsureStream(testCtx(t), StreamSpec{Name: "LONG", Subjects: []string{"l.>"}, DuplicateWindow: time.Hour}); err != nil {
		t.Fatal(err)
	}
	for stream, want := range map[string]time.Duration{"DEFAULT": 2 * time.Minute, "LONG": time.Hour} {
		got, err := c.DuplicateWindow(testCtx(t), stream)
		if err != nil || got != want {
			t.Errorf("DuplicateWindow(%s) = %s, %v; want %s", stream, got, err, want)
		}
	}
	if _, err := c.DuplicateWindow(testCtx(t), "NONE"); !errors.Is(err, ErrStreamNotFound) || !strings.Contains(err.Error(), "NONE") {
		t.Fatalf("missing stream: err = %v", err)
	}
}

func TestDuplicateWindowWarning(t *testing.T) {
	tests := []struct {
		window, replay time.Duration
		warn           bool
	}{
		{2 * time.Minute, time.Minute, false},
		{2 * time.Minute, 2 * time.Minute, false},
		{2 * time.Minute, 3 * time.Minute, true},
		{0, time.Second, true},
	}
	for _, tt := range tests {
		got := DuplicateWindowWarning("OUT", tt.window, tt.replay)
		if (got != "") != tt.warn {
			t.Errorf("DuplicateWindowWarning(%s, %s) = %q, want warning %v", tt.window, tt.replay, got, tt.warn)
		}
		if tt.warn && (!strings.Contains(got, "OUT") || !strings.Contains(got, tt.replay.String())) {
			t.Errorf("warning %q does not name the stream and the needed window", got)
		}
	}
}
