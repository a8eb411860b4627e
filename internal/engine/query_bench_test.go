package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/statequery"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// benchAccounts is how many accounts the backlog spreads over.
const benchAccounts = 10000

// queriedAccounts are the accounts the querier asks for: the first records
// of the backlog, so their state exists from the first batch on.
const queriedAccounts = 100

// BenchmarkLiveQueryOverhead measures end-to-end records/s of the
// payment-risk pipeline (its Go operator: a running total per account and a
// seen-marker per event id, one output per accepted event; two tasks keyed
// by the JSON field "account"; b.N events over 10000 accounts published
// beforehand; checkpoints every second; the clock runs from the start of
// Run until Run returned after its final checkpoint) without live queries
// ("off") and with a querier sending 100 live queries/s ("on": the rate
// at which the goal is live queries costing at most 3 % of throughput)
// for the total of accounts that exist, as the control user over NATS request-reply, the path of
// `wasmstream state get --live`. Both run in one invocation;
// QUERY_FIRST=on runs "on" first, which scripts/bench-query.sh alternates
// so that a drift of the machine's load does not always favour one mode.
func BenchmarkLiveQueryOverhead(b *testing.B) {
	modes := []string{"off", "on"}
	if os.Getenv("QUERY_FIRST") == "on" {
		modes = []string{"on", "off"}
	}
	for _, mode := range modes {
		b.Run(mode, func(b *testing.B) { liveQueryOverheadOnce(b, mode == "on") })
	}
}

// benchRun is the payment-risk bench pipeline over a published backlog,
// running.
type benchRun struct {
	p    *Pipeline
	cfg  *config.Pipeline
	stop context.CancelFunc
	done chan error
}

// openPaymentRisk opens the payment-risk bench pipeline (checkpoints every
// second) and publishes n events; the benchmark's cleanup closes it.
func openPaymentRisk(b *testing.B, n int) *benchRun {
	b.Helper()
	cfg := paymentRiskBenchConfig(b, testutil.GoGuest(b, paymentRiskPkg))
	p, err := Open(context.Background(), cfg, Options{Logger: hclog.NewNullLogger(), Checkpoint: CheckpointOptions{Interval: time.Second}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	publishPayments(b, p, n)
	return &benchRun{p: p, cfg: cfg}
}

// start runs the pipeline on a goroutine of its own.
func (r *benchRun) start() {
	ctx, stop := context.WithCancel(context.Background())
	r.stop, r.done = stop, make(chan error, 1)
	go func() { r.done <- r.p.Run(ctx) }()
}

// waitProcessed waits until the pipeline processed n records.
func (r *benchRun) waitProcessed(n uint64) {
	for r.p.Stats().Processed < n {
		time.Sleep(2 * time.Millisecond)
	}
}

// end stops the run and fails the benchmark if Run failed.
func (r *benchRun) end(b *testing.B) {
	b.Helper()
	r.stop()
	if err := <-r.done; err != nil {
		b.Fatal(err)
	}
}

func liveQueryOverheadOnce(b *testing.B, queried bool) {
	r := openPaymentRisk(b, b.N)
	var q *querier
	if queried {
		var err error
		if q, err = startQuerier(context.Background(), r.cfg, 100); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	cpuBefore := processCPU(b)
	r.start()
	r.waitProcessed(uint64(b.N))
	r.end(b)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(processCPU(b)-cpuBefore)/float64(b.N), "cpu-ns/record")
	if q != nil {
		q.stop()
		reportQueries(b, q)
	}
}

// processCPU is the CPU time (user and system) the process has used: the
// pipeline, the embedded server and, with queries, the querier. Per record
// it is a cost figure that a shared machine's load disturbs far less than
// records/s, which measures the share of the CPU the run was given.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportQueries reports the querier's rates: queries sent and answered
// per second (a query costs its task time in proportion to the task's
// write-back cache, BenchmarkTaskAnswerQuery, so a task may answer fewer
// than are sent and the rest wait: unanswered-queries counts those still
// waiting at the stop or timed out). Any other error fails the benchmark.
func reportQueries(b *testing.B, q *querier) {
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(q.sent.Load())/secs, "sent-queries/s")
	b.ReportMetric(float64(q.found.Load()+q.notFound.Load())/secs, "answered-queries/s")
	b.ReportMetric(float64(q.notFound.Load()), "not-found-queries")
	b.ReportMetric(float64(q.unanswered.Load()), "unanswered-queries")
	if n := q.failed.Load(); n > 0 {
		b.Fatalf("%d of %d live queries failed, the last: %v", n, q.sent.Load(), q.lastErr)
	}
}

// querier sends live state queries at a fixed rate, each on its own
// goroutine so that a query waiting for a busy task does not hold back the
// next one.
type querier struct {
	conn        *natsio.Conn
	paused      atomic.Bool // sends nothing while set (BenchmarkLiveQueryWindows)
	quit, done  chan struct{}
	sent, found atomic.Int64
	notFound    atomic.Int64 // the answer came: the key has no state yet
	unanswered  atomic.Int64 // still waiting for a task at the stop, or timed out
	failed      atomic.Int64 // any other error
	inFlight    sync.WaitGroup
	lastErr     error
	errMu       sync.Mutex
}

func startQuerier(ctx context.Context, cfg *config.Pipeline, perSecond int) (*querier, error) {
	conn, err := ConnectClient(ctx, cfg, hclog.NewNullLogger(), AsControl)
	if err != nil {
		return nil, err
	}
	q := &querier{conn: conn, quit: make(chan struct{}), done: make(chan struct{})}
	go q.loop(cfg.Name, perSecond)
	return q, nil
}

func (q *querier) loop(pipeline string, perSecond int) {
	defer close(q.done)
	tick := time.NewTicker(time.Second / time.Duration(perSecond))
	defer tick.Stop()
	start := time.Now()
	for i := 0; ; {
		select {
		case <-q.quit:
			return
		case <-tick.C:
		}
		// A ticker drops ticks when this goroutine waits for a CPU: catch
		// up by the clock, so that the rate holds on a loaded machine.
		due := int(time.Since(start).Seconds() * float64(perSecond))
		if q.paused.Load() {
			i = due
		}
		for ; i < due; i++ {
			req := statequery.Request{Operator: "risk", Key: fmt.Sprintf("acct-%05d", i%queriedAccounts), State: "total"}
			q.sent.Add(1)
			q.inFlight.Add(1)
			go q.ask(pipeline, req)
		}
	}
}

func (q *querier) ask(pipeline string, req statequery.Request) {
	defer q.inFlight.Done()
	_, _, err := statequery.Live(q.conn.NC, pipeline, req, queryTimeout)
	if err == nil {
		q.found.Add(1)
		return
	}
	switch {
	case errors.Is(err, statequery.ErrKeyNotFound):
		q.notFound.Add(1)
		return
	case errors.Is(err, nats.ErrTimeout), strings.Contains(err.Error(), errQueryStopped.Error()),
		strings.Contains(err.Error(), "did not take the state query"), strings.Contains(err.Error(), "did not answer the state query"):
		q.unanswered.Add(1)
		return
	}
	q.failed.Add(1)
	q.errMu.Lock()
	q.lastErr = err
	q.errMu.Unlock()
}

// stop ends the querier after its queries in flight returned.
func (q *querier) stop() {
	close(q.quit)
	<-q.done
	q.inFlight.Wait()
	q.conn.Close()
}

// publishPayments publishes n payment events of distinct ids to
// "payments.in", account by account round the benchAccounts.
func publishPayments(b *testing.B, p *Pipeline, n int) {
	b.Helper()
	ctx := context.Background()
	c, err := natsio.Connect(ctx, p.Reach())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	sink := c.NewSink(8192)
	defer sink.Close()
	for i := range n {
		data := []byte(event(fmt.Sprintf("acct-%05d", i%benchAccounts), fmt.Sprintf("evt-%09d", i), 100+i%900))
		if err := sink.Publish(ctx, natsio.OutMessage{Subject: "payments.in", Data: data}); err != nil {
			b.Fatal(err)
		}
	}
	if err := sink.Flush(ctx); err != nil {
		b.Fatal(err)
	}
}

// paymentRiskBenchConfig is testPipeline's payment-risk pipeline with two
// tasks, for a benchmark.
func paymentRiskBenchConfig(b *testing.B, wasm string) *config.Pipeline {
	b.Helper()
	src := fmt.Sprintf(`name     = "payment-risk"
data_dir = %q
server { embedded_port = %d }
stream "PAYMENTS" { subjects = ["payments.>"] }
stream "RISK" { subjects = ["risk.>"] }
source "payments" {
  stream  = "PAYMENTS"
  subject = "payments.in"
}
operator "risk" {
  module      = %q
  inputs      = ["payments"]
  key { json_field = "account" }
  parallelism = 2
  outputs     = { out = "risk-totals" }
}
sink "risk-totals" { subject = "risk.totals" }
`, testutil.PrivateTempDir(b), testutil.FreePort(b), wasm)
	path := filepath.Join(b.TempDir(), "pipeline.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg, diags, err := config.Load(path)
	if err != nil || len(diags) > 0 {
		b.Fatalf("bench pipeline: %v %v", err, diags)
	}
	return cfg
}

// BenchmarkTaskAnswerQuery is what one live query costs the task that
// answers it (answerQuery: Backend.ReadKey of one key on the task's
// goroutine, between two items), with the given number of state entries
// in the write-back cache: about 1.25 per record of BenchmarkLiveQueryOverhead's
// pipeline per task (a seen-marker per event, a total per account).
func BenchmarkTaskAnswerQuery(b *testing.B) {
	for _, entries := range []int{1000, 25000, 100000} {
		b.Run(fmt.Sprint(entries), func(b *testing.B) { answerQueryOnce(b, entries) })
	}
}

func answerQueryOnce(b *testing.B, entries int) {
	store, err := state.Open(b.TempDir(), state.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	backend, err := store.Backend(state.BackendOptions{Operator: "risk", Range: state.RangeForTask(0, 1, state.DefaultMaxParallelism)})
	if err != nil {
		b.Fatal(err)
	}
	defer backend.Close()
	backend.BeginBatch()
	for i := range entries {
		if err := backend.SetCurrentKey(fmt.Appendf(nil, "acct-%05d", i%benchAccounts)); err != nil {
			b.Fatal(err)
		}
		name := fmt.Appendf(nil, "seen\x00evt-%09d", i)
		if i < benchAccounts {
			name = []byte("total")
		}
		if err := backend.Put(name, []byte("12345678")); err != nil {
			b.Fatal(err)
		}
	}
	backend.CommitBatch()
	t := &task{backend: backend}
	for b.Loop() {
		q := liveQuery{key: []byte("acct-00042"), name: "total", reply: make(chan queryAnswer, 1)}
		t.answerQuery(q)
		if a := <-q.reply; a.err != nil || len(a.entries) != 1 {
			b.Fatalf("answer: %v, %d entries, want acct-00042's total", a.err, len(a.entries))
		}
	}
}

// BenchmarkLiveQueryCPU is what one live query costs in CPU, end to end in
// one process: the querier's request, the embedded server's routing both
// ways, the pipeline's decoding, hand-over to the task, ReadKey and
// answer. The pipeline has loaded the state of 10,000 accounts and is idle,
// so nothing else uses the CPU meanwhile but its checkpoints every second
// (counted in). At 100 queries/s the queries take 100 × this per second,
// reported as share-of-one-core-at-100/s: a bound on the throughput they
// cost a CPU-bound pipeline even if it could use only one core, which the
// machine's load does not disturb the way it disturbs records/s
// (BenchmarkLiveQueryOverhead).
func BenchmarkLiveQueryCPU(b *testing.B) {
	const loaded = 2 * benchAccounts
	r := openPaymentRisk(b, loaded)
	r.start()
	r.waitProcessed(loaded)
	cfg := r.cfg
	conn, err := ConnectClient(context.Background(), cfg, hclog.NewNullLogger(), AsControl)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	b.ResetTimer()
	cpuBefore := processCPU(b)
	for i := 0; b.Loop(); i++ {
		req := statequery.Request{Operator: "risk", Key: fmt.Sprintf("acct-%05d", i%queriedAccounts), State: "total"}
		if _, _, err := statequery.Live(conn.NC, cfg.Name, req, queryTimeout); err != nil {
			b.Fatalf("query %d: %v", i, err)
		}
	}
	perQuery := float64(processCPU(b)-cpuBefore) / float64(b.N)
	b.StopTimer()
	b.ReportMetric(perQuery, "cpu-ns/query")
	b.ReportMetric(100*perQuery/float64(time.Second), "share-of-one-core-at-100/s")
	r.end(b)
}
