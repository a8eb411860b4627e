package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// With parallelism 4, records are routed by key group to four tasks, each
// with its own instance and state range: every account's running total must
// still be exact and never go backwards (one key's records stay in order).
// The 24 accounts spread over all four key-group ranges.
func TestParallelTasksKeepPerKeyState(t *testing.T) {
	wasm := testutil.GoGuest(t, paymentRiskPkg)
	cfg := testPipeline(t, wasm, testutil.PrivateTempDir(t), testutil.FreePort(t), "parallelism = 4")
	const accounts, perAccount = 24, 5
	var lines strings.Builder
	want := map[string]int64{}
	for i := 0; i < perAccount; i++ {
		for a := 0; a < accounts; a++ {
			acct := fmt.Sprintf("acct-%d", a)
			cents := int64(a*10 + i + 1)
			want[acct] += cents
			fmt.Fprintf(&lines, `{"account":%q,"event":"e-%d-%d","cents":%d}`+"\n", acct, a, i, cents)
		}
	}
	tasks := map[int]bool{}
	for acct := range want {
		tasks[state.TaskForKeyGroup(state.KeyGroup([]byte(acct), state.DefaultMaxParallelism), 4, state.DefaultMaxParallelism)] = true
	}
	if len(tasks) != 4 {
		t.Fatalf("test input reaches only %d of 4 tasks", len(tasks))
	}
	stats := runUntilIdle(t, cfg, lines.String())
	if stats.Processed != accounts*perAccount || stats.Emitted != accounts*perAccount {
		t.Fatalf("stats %+v", stats)
	}
	last := map[string]int64{}
	for _, r := range results(t, readSubject(t, cfg, "risk.totals")) {
		if r.Total < last[r.Account] {
			t.Fatalf("total of %s went down: %d after %d (records of one key reordered across tasks)", r.Account, r.Total, last[r.Account])
		}
		last[r.Account] = r.Total
	}
	for acct, total := range want {
		if last[acct] != total {
			t.Errorf("%s: total %d, want %d", acct, last[acct], total)
		}
	}
}
