package config

import (
	"strings"
	"testing"
	"time"
)

// The exchange block sets the exchange streams' duplicate window (2 hours without it), from a
// minute to a week; the effective config writes it for a pipeline with exchange edges.
func TestExchangeBlock(t *testing.T) {
	p, err := loadText(t, routedPipeline)
	if err != nil {
		t.Fatal(err)
	}
	if p.Exchange.DuplicateWindow != DefaultExchangeDuplicateWindow {
		t.Errorf("default window %s, want %s", p.Exchange.DuplicateWindow, DefaultExchangeDuplicateWindow)
	}
	p, err = loadText(t, routedPipeline+"exchange {\n  duplicate_window = \"6h\"\n}\n")
	if err != nil {
		t.Fatal(err)
	}
	if p.Exchange.DuplicateWindow != 6*time.Hour || !strings.Contains(p.String(), `duplicate_window = "6h`) {
		t.Errorf("window %s; effective config:\n%s", p.Exchange.DuplicateWindow, p.String())
	}
	for _, bad := range []string{"30s", "200h", "soon"} {
		_, err := loadText(t, routedPipeline+"exchange {\n  duplicate_window = \""+bad+"\"\n}\n")
		if err == nil || !strings.Contains(err.Error(), "duplicate_window") {
			t.Errorf("duplicate_window = %q: err = %v, want a refusal naming duplicate_window", bad, err)
		}
	}
}
