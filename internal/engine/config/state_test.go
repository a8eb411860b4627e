package config

import (
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/ttlspec"
)

// withOperatorLines returns checkpointBase with lines added to operator "o".
func withOperatorLines(lines string) string {
	return strings.Replace(checkpointBase, `module = "o.wasm"`, `module = "o.wasm"`+"\n"+lines, 1)
}

// TestStateBlockDecode: a state block's TTL and its options are read; left-out options keep
// their defaults; the effective config prints them and reads back the same.
func TestStateBlockDecode(t *testing.T) {
	src := withOperatorLines(`
  state "seen" {
    ttl = "10m"
  }
  state "session" {
    ttl            = "90s"
    ttl_update     = "on_read_and_write"
    ttl_visibility = "return_expired_if_not_cleaned"
    ttl_time       = "event_time"
  }`)
	p, diags, err := Parse([]byte(src), "p.hcl")
	if err != nil || len(diags) > 0 {
		t.Fatalf("%v %v", err, diags)
	}
	want := []ttlspec.TTL{
		{Duration: 10 * time.Minute},
		{Duration: 90 * time.Second, Update: ttlspec.OnReadAndWrite, Visibility: ttlspec.ReturnExpiredIfNotCleaned, TimeDomain: ttlspec.EventTime},
	}
	states := p.Operators[0].States
	if len(states) != 2 || states[0].Name != "seen" || states[1].Name != "session" {
		t.Fatalf("states %+v", states)
	}
	for i, s := range states {
		if s.TTL != want[i] {
			t.Errorf("state %q: TTL %+v, want %+v", s.Name, s.TTL, want[i])
		}
	}
	again, diags, err := Parse([]byte(p.String()), "p.hcl")
	if err != nil || len(diags) > 0 {
		t.Fatalf("effective config does not read back: %v %v\n%s", err, diags, p.String())
	}
	for i, s := range again.Operators[0].States {
		if s.TTL != want[i] {
			t.Errorf("read back state %q: TTL %+v, want %+v", s.Name, s.TTL, want[i])
		}
	}
}

// TestStateBlockErrors: each mistake is reported at its place with the fix.
func TestStateBlockErrors(t *testing.T) {
	for _, tc := range []struct{ lines, want string }{
		{`state "s" { ttl = "0s" }`, `ttl: must be positive, got "0s"`},
		{`state "s" { ttl = "ten minutes" }`, `is not a duration`},
		{`state "s" {
  ttl = "1m"
  ttl_update = "on_write"
}`, `"on_write" is not supported; use one of: on_create_and_write, on_read_and_write`},
		{`state "s" {
  ttl = "1m"
  ttl_time = "wall"
}`, `use one of: processing_time, event_time`},
		{`state "s" { ttl = "1m" }
state "s" { ttl = "2m" }`, `state "s" is configured twice; merge the two blocks`},
		{`state "s" { size = 1 }`, `size`},
	} {
		_, diags, _ := Parse([]byte(withOperatorLines(tc.lines)), "p.hcl")
		if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant an error containing %q", tc.lines, diags, tc.want)
		}
	}
}

// TestStateBlockWarnsAboutOptionsWithoutTTL: TTL options without a ttl do nothing; say so.
func TestStateBlockWarnsAboutOptionsWithoutTTL(t *testing.T) {
	_, diags, err := Parse([]byte(withOperatorLines(`state "s" { ttl_update = "on_read_and_write" }`)), "p.hcl")
	if err != nil || diags.HasErrors() || !strings.Contains(diags.Error(), "has no effect without ttl") {
		t.Fatalf("want one warning, got %v %v", err, diags)
	}
}

// TestMaxDuplicateDelay is read, printed and read back.
func TestMaxDuplicateDelay(t *testing.T) {
	src := strings.Replace(checkpointBase, `subject = "in.>"`, `subject = "in.>"`+"\n  max_duplicate_delay = \"5m\"", 1)
	p, diags, err := Parse([]byte(src), "p.hcl")
	if err != nil || len(diags) > 0 {
		t.Fatalf("%v %v", err, diags)
	}
	if got := p.Sources[0].MaxDuplicateDelay; got != 5*time.Minute {
		t.Fatalf("MaxDuplicateDelay %v", got)
	}
	if !strings.Contains(p.String(), `max_duplicate_delay = "5m0s"`) {
		t.Fatalf("effective config lacks max_duplicate_delay:\n%s", p.String())
	}
}
