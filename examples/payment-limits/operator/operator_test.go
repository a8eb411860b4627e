//go:build !wasip1

package main

import (
	"bufio"
	"errors"
	"os"
	"strings"
	"testing"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

func newHarness(t *testing.T) *sdktest.Harness {
	t.Helper()
	h, err := sdktest.New(&limitsOperator{}, sdktest.Options{Outputs: []string{outputDecisions}})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// limitRec is a record of input 0.
func limitRec(account, value string) sdktest.Record {
	return sdktest.Record{Key: []byte(account), Value: []byte(value), Input: inputLimits}
}

// payRec is a record of input 1.
func payRec(account, value string) sdktest.Record {
	return sdktest.Record{Key: []byte(account), Value: []byte(value), Input: inputPayments}
}

// process runs one batch and fails the test on a harness error or a dead
// letter.
func process(t *testing.T, h *sdktest.Harness, records ...sdktest.Record) []string {
	t.Helper()
	res, err := h.Process(records...)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.DeadLetters) != 0 {
		t.Fatalf("dead letters: %+v", res.DeadLetters)
	}
	return values(res.Outputs)
}

func values(outs []sdktest.Output) []string {
	var vs []string
	for _, o := range outs {
		vs = append(vs, string(o.Value))
	}
	return vs
}

func int64State(t *testing.T, h *sdktest.Harness, account, name string) (int64, bool) {
	t.Helper()
	raw, ok := h.State(account, name)
	if !ok {
		return 0, false
	}
	n, err := wasmstream.Int64Codec.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	return n, true
}

func wantOutputs(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("outputs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestEachDecision(t *testing.T) {
	h := newHarness(t)
	got := process(t, h,
		payRec("c", `{"id":"p0","account":"c","amount_cents":500}`),
		limitRec("a", `{"account":"a","limit_cents":1000}`),
		payRec("a", `{"id":"p1","account":"a","amount_cents":600}`),
		payRec("a", `{"id":"p2","account":"a","amount_cents":500}`),
		payRec("a", `{"id":"p3","account":"a","amount_cents":400}`),
	)
	wantOutputs(t, got, []string{
		`{"id":"p0","account":"c","amount_cents":500,"spent_cents":0,"limit_cents":0,"decision":"no-limit"}`,
		`{"id":"p1","account":"a","amount_cents":600,"spent_cents":600,"limit_cents":1000,"decision":"approved"}`,
		`{"id":"p2","account":"a","amount_cents":500,"spent_cents":600,"limit_cents":1000,"decision":"over-limit"}`,
		`{"id":"p3","account":"a","amount_cents":400,"spent_cents":1000,"limit_cents":1000,"decision":"approved"}`,
	})
	if spent, _ := int64State(t, h, "a", "spent"); spent != 1000 {
		t.Fatalf("spent of a = %d, want 1000", spent)
	}
	if _, ok := h.State("c", "spent"); ok {
		t.Fatal("a no-limit payment stored a spent total")
	}
	if _, ok := h.State("c", "limit"); ok {
		t.Fatal("a payment stored a limit")
	}
}

func TestOutputKeyAndHeader(t *testing.T) {
	h := newHarness(t)
	res, err := h.Process(payRec("acct-1", `{"id":"evt-1","account":"acct-1","amount_cents":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outputs) != 1 {
		t.Fatalf("%d outputs, want 1", len(res.Outputs))
	}
	o := res.Outputs[0]
	if o.Output != "decisions" || string(o.Key) != "acct-1" {
		t.Fatalf("output %q key %q, want decisions acct-1", o.Output, o.Key)
	}
	if len(o.Headers) != 1 || o.Headers[0] != (wasmstream.Header{Name: "payment-id", Value: "evt-1"}) {
		t.Fatalf("headers %v, want payment-id evt-1", o.Headers)
	}
}

// A payment id seen before gets no second decision, whatever the first one
// was, in the same batch or a later one, even when the limit changed since.
func TestDuplicatesAreIgnored(t *testing.T) {
	h := newHarness(t)
	first := process(t, h,
		payRec("a", `{"id":"early","account":"a","amount_cents":5}`),
		limitRec("a", `{"account":"a","limit_cents":100}`),
		payRec("a", `{"id":"ok","account":"a","amount_cents":60}`),
		payRec("a", `{"id":"ok","account":"a","amount_cents":60}`),
		payRec("a", `{"id":"big","account":"a","amount_cents":50}`),
	)
	if len(first) != 3 {
		t.Fatalf("first batch: %d outputs, want 3 (early, ok, big): %v", len(first), first)
	}
	res, err := h.Process(
		limitRec("a", `{"account":"a","limit_cents":1000}`),
		payRec("a", `{"id":"early","account":"a","amount_cents":5}`),
		payRec("a", `{"id":"big","account":"a","amount_cents":50}`),
		payRec("a", `{"id":"ok","account":"a","amount_cents":999}`),
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outputs) != 0 || len(res.DeadLetters) != 0 {
		t.Fatalf("redeliveries produced outputs %v, dead letters %+v", values(res.Outputs), res.DeadLetters)
	}
	if spent, _ := int64State(t, h, "a", "spent"); spent != 60 {
		t.Fatalf("spent = %d, want 60: a duplicate changed it", spent)
	}
	debug := 0
	for _, l := range res.Logs {
		if l.Level == wasmstream.LevelDebug && strings.Contains(l.Msg, "duplicate payment") {
			debug++
		}
	}
	if debug != 3 {
		t.Fatalf("%d duplicate log lines, want 3: %+v", debug, res.Logs)
	}
}

// Ids are deduplicated per account: the same id in two accounts is two
// payments.
func TestDedupIsPerAccount(t *testing.T) {
	h := newHarness(t)
	got := process(t, h,
		limitRec("a", `{"account":"a","limit_cents":10}`),
		limitRec("b", `{"account":"b","limit_cents":10}`),
		payRec("a", `{"id":"p","account":"a","amount_cents":3}`),
		payRec("b", `{"id":"p","account":"b","amount_cents":4}`),
	)
	if len(got) != 2 {
		t.Fatalf("outputs %v, want one per account", got)
	}
	a, _ := int64State(t, h, "a", "spent")
	b, _ := int64State(t, h, "b", "spent")
	if a != 3 || b != 4 {
		t.Fatalf("spent a=%d b=%d, want 3 and 4", a, b)
	}
}

// A new limit applies to later payments and keeps the spent total; emits
// nothing itself.
func TestLimitChange(t *testing.T) {
	h := newHarness(t)
	got := process(t, h,
		limitRec("a", `{"account":"a","limit_cents":100}`),
		payRec("a", `{"id":"p1","account":"a","amount_cents":80}`),
		limitRec("a", `{"account":"a","limit_cents":50}`),
		payRec("a", `{"id":"p2","account":"a","amount_cents":0}`),
		limitRec("a", `{"account":"a","limit_cents":200}`),
		payRec("a", `{"id":"p3","account":"a","amount_cents":120}`),
		payRec("a", `{"id":"p4","account":"a","amount_cents":1}`),
	)
	wantOutputs(t, got, []string{
		`{"id":"p1","account":"a","amount_cents":80,"spent_cents":80,"limit_cents":100,"decision":"approved"}`,
		`{"id":"p2","account":"a","amount_cents":0,"spent_cents":80,"limit_cents":50,"decision":"over-limit"}`,
		`{"id":"p3","account":"a","amount_cents":120,"spent_cents":200,"limit_cents":200,"decision":"approved"}`,
		`{"id":"p4","account":"a","amount_cents":1,"spent_cents":200,"limit_cents":200,"decision":"over-limit"}`,
	})
	if limit, _ := int64State(t, h, "a", "limit"); limit != 200 {
		t.Fatalf("limit = %d, want 200", limit)
	}
}

// The decision depends on the order in which the two inputs interleave:
// the same records, a payment before or after its account's first limit.
func TestInterleaving(t *testing.T) {
	lim := limitRec("a", `{"account":"a","limit_cents":100}`)
	pay := payRec("a", `{"id":"p","account":"a","amount_cents":10}`)
	tests := []struct {
		name    string
		records []sdktest.Record
		want    string
	}{
		{"limit first", []sdktest.Record{lim, pay},
			`{"id":"p","account":"a","amount_cents":10,"spent_cents":10,"limit_cents":100,"decision":"approved"}`},
		{"payment first", []sdktest.Record{pay, lim},
			`{"id":"p","account":"a","amount_cents":10,"spent_cents":0,"limit_cents":0,"decision":"no-limit"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			wantOutputs(t, process(t, h, tt.records...), []string{tt.want})
			// The limit is stored either way.
			if limit, ok := int64State(t, h, "a", "limit"); !ok || limit != 100 {
				t.Fatalf("limit = %d (stored %v), want 100", limit, ok)
			}
		})
	}
}

// Limits and payments arriving in separate batches (as from two sources)
// join on the committed state.
func TestInputsAcrossBatches(t *testing.T) {
	h := newHarness(t)
	if got := process(t, h, limitRec("a", `{"account":"a","limit_cents":100}`), limitRec("b", `{"account":"b","limit_cents":5}`)); len(got) != 0 {
		t.Fatalf("limit updates emitted %v", got)
	}
	wantOutputs(t, process(t, h,
		payRec("b", `{"id":"p1","account":"b","amount_cents":6}`),
		payRec("a", `{"id":"p1","account":"a","amount_cents":6}`),
	), []string{
		`{"id":"p1","account":"b","amount_cents":6,"spent_cents":0,"limit_cents":5,"decision":"over-limit"}`,
		`{"id":"p1","account":"a","amount_cents":6,"spent_cents":6,"limit_cents":100,"decision":"approved"}`,
	})
}

// A bad record is dead-lettered with its reason; the rest of its batch is
// committed.
func TestBadRecordsGoToDeadLetters(t *testing.T) {
	tests := []struct {
		name   string
		rec    sdktest.Record
		reason string
	}{
		{"limit not JSON", limitRec("a", `{"account":`), "limit update: not valid JSON"},
		{"limit missing value", limitRec("a", `{"account":"a"}`), "missing limit_cents"},
		{"limit negative", limitRec("a", `{"account":"a","limit_cents":-1}`), "negative limit_cents"},
		{"limit other key", limitRec("a", `{"account":"b","limit_cents":1}`), `limit update: account "b" does not match the record key "a"`},
		{"payment not JSON", payRec("a", `not json`), "payment: not valid JSON"},
		{"payment missing id", payRec("a", `{"account":"a","amount_cents":1}`), "missing id"},
		{"payment missing amount", payRec("a", `{"id":"x","account":"a"}`), "payment x: missing amount_cents"},
		{"payment missing account", payRec("a", `{"id":"x","amount_cents":1}`), "payment x: missing account"},
		{"payment other key", payRec("a", `{"id":"x","account":"b","amount_cents":1}`), `payment x: account "b" does not match the record key "a"`},
		{"unknown input", sdktest.Record{Key: []byte("a"), Value: []byte(`{}`), Input: 2}, "input 2: the operator has inputs 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			res, err := h.Process(
				limitRec("a", `{"account":"a","limit_cents":10}`),
				tt.rec,
				payRec("a", `{"id":"ok","account":"a","amount_cents":3}`),
			)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.DeadLetters) != 1 || !strings.Contains(res.DeadLetters[0].Reason, tt.reason) {
				t.Fatalf("dead letters %+v, want one whose reason mentions %q", res.DeadLetters, tt.reason)
			}
			spent, _ := int64State(t, h, "a", "spent")
			limit, _ := int64State(t, h, "a", "limit")
			if len(res.Outputs) != 1 || spent != 3 || limit != 10 {
				t.Fatalf("the good records were not committed: %d outputs, spent %d, limit %d", len(res.Outputs), spent, limit)
			}
			if _, ok := h.MapState("a", "seen", "x"); ok {
				t.Fatal("a rejected payment was remembered as seen")
			}
		})
	}
}

func TestConfigIsRefused(t *testing.T) {
	_, err := sdktest.New(&limitsOperator{}, sdktest.Options{Config: []byte(`{"max_cents":5}`)})
	if !errors.Is(err, sdktest.ErrInit) || !strings.Contains(err.Error(), "takes no config") {
		t.Fatalf("config: %v, want an Init error saying the operator takes no config", err)
	}
	for _, cfg := range []string{"", " \n"} {
		if _, err := sdktest.New(&limitsOperator{}, sdktest.Options{Config: []byte(cfg)}); err != nil {
			t.Errorf("config %q: %v", cfg, err)
		}
	}
}

// The sample files, limits first (one of the orders a run may see): the
// decisions the README shows; the duplicate evt-1 gets none.
func TestSampleData(t *testing.T) {
	h := newHarness(t)
	var recs []sdktest.Record
	for _, f := range []struct {
		path  string
		input int
	}{{"../limits.jsonl", inputLimits}, {"../payments.jsonl", inputPayments}} {
		for _, line := range readLines(t, f.path) {
			acct := accountOf(t, line)
			recs = append(recs, sdktest.Record{Key: []byte(acct), Value: []byte(line), Input: f.input})
		}
	}
	wantOutputs(t, process(t, h, recs...), []string{
		`{"id":"evt-1","account":"acct-1","amount_cents":1200,"spent_cents":1200,"limit_cents":50000,"decision":"approved"}`,
		`{"id":"evt-2","account":"acct-2","amount_cents":8000,"spent_cents":8000,"limit_cents":10000,"decision":"approved"}`,
		`{"id":"evt-3","account":"acct-2","amount_cents":3000,"spent_cents":8000,"limit_cents":10000,"decision":"over-limit"}`,
		`{"id":"evt-4","account":"acct-3","amount_cents":500,"spent_cents":0,"limit_cents":0,"decision":"no-limit"}`,
		`{"id":"evt-5","account":"acct-1","amount_cents":48800,"spent_cents":50000,"limit_cents":50000,"decision":"approved"}`,
	})
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

func accountOf(t *testing.T, line string) string {
	t.Helper()
	p, err := parsePayment([]byte(line))
	if err == nil {
		return p.Account
	}
	u, err := parseLimit([]byte(line))
	if err != nil {
		t.Fatalf("sample line %s: %v", line, err)
	}
	return u.Account
}
