package bench

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// sinkLoad is the steady input of the latency benchmark.
type sinkLoad struct {
	rate    int // records per second
	seconds int // how long the input lasts
	keys    int // distinct keys, cycled
}

func (l sinkLoad) records() int { return l.rate * l.seconds }

// BenchmarkSinkLatency measures, per sink mode, the time from a record's
// arrival in its input stream to its output's arrival in stream OUT: the
// JetStream timestamp of the output minus that of the input, both taken by
// the same server's clock, matched by an id in the value. Records are
// published at a steady SINK_RATE per second (default 2000) for
// SINK_SECONDS (default 1) over SINK_KEYS keys while the pipeline runs and
// checkpoints every SINK_INTERVAL_MS (default 1000). One warm-up record
// goes through first (for a transactional sink, through the first
// checkpoint), so the measure starts with a running source and guest.
//
// Reported: p50, p99 and max latency in ms over every record of the b.N
// runs, the records measured, the input rate reached and the run's
// checkpoints. A transactional output waits for the next checkpoint
// trigger (up to an interval, half of one on average), that checkpoint's
// duration and the publication of its atomic batches: p50 ≈ interval/2 +
// checkpoint, p99 ≈ interval + checkpoint. The other modes publish as they
// process.
func BenchmarkSinkLatency(b *testing.B) {
	wasm := testutil.GoGuest(b, "./internal/testguests/bench")
	load := sinkLoad{rate: envInt(b, "SINK_RATE", 2000), seconds: envInt(b, "SINK_SECONDS", 1), keys: envInt(b, "SINK_KEYS", 100_000)}
	for _, mode := range sinkModes {
		b.Run(mode, func(b *testing.B) {
			var lat []float64
			var inRate float64
			for i := 0; i < b.N; i++ {
				l, r := latencyRun(b, wasm, mode, load)
				lat = append(lat, l...)
				inRate += r / float64(b.N)
			}
			sort.Float64s(lat)
			b.ReportMetric(percentile(lat, 50), "p50-ms")
			b.ReportMetric(percentile(lat, 99), "p99-ms")
			b.ReportMetric(percentile(lat, 100), "max-ms")
			b.ReportMetric(float64(len(lat)), "records")
			b.ReportMetric(inRate, "in-records/s")
		})
	}
}

// latencyRun runs one pipeline under load and returns the latency of each
// record (ms) and the input rate reached.
func latencyRun(b *testing.B, wasm, mode string, load sinkLoad) ([]float64, float64) {
	cfg := sinkConfig(b, wasm, mode)
	p := ckOpen(b, cfg, sinkCheckpoints(b), noRecovery)
	defer p.Close()
	c := connect(b, p)
	defer c.Close()
	run := startRun(p)
	publishKeyed(b, p, "in0", 1, func(int) string { return "warm" }, func(int) []byte { return []byte("warm") })
	run.waitStored(b, c, "OUT", 1)
	if err := publishSteady(context.Background(), c, "in0", load); err != nil {
		b.Fatal(err)
	}
	run.waitStored(b, c, "OUT", uint64(load.records())+1)
	run.finish(b)
	reportRunCheckpoints(b, cfg)
	in := storedTimes(b, c, "IN0", nil)
	out := storedTimes(b, c, "OUT", func(m natsio.Message) {
		if hasID := m.Header.Get(jetstream.MsgIDHeader) != ""; hasID != (mode != config.ModeAtLeastOnce) {
			b.Fatalf("%s sink: output %q has message id %q", mode, m.Data, m.Header.Get(jetstream.MsgIDHeader))
		}
	})
	lat, err := matchLatencies(in, out)
	if err != nil {
		b.Fatalf("%s sink: %v", mode, err)
	}
	return lat, inputRate(in)
}

// publishSteady publishes load.records() latency records on subject at
// load.rate per second: every few milliseconds it publishes the records
// due by then, so a slow moment is caught up instead of lowering the rate.
func publishSteady(ctx context.Context, c *natsio.Conn, subject string, load sinkLoad) error {
	sink := c.NewSink(8192)
	defer sink.Close()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	n := load.records()
	start := time.Now()
	for i := 0; i < n; {
		due := min(n, int(time.Since(start).Seconds()*float64(load.rate))+1)
		for ; i < due; i++ {
			h := map[string][]string{"Key": {keyName(i % load.keys)}}
			if err := sink.Publish(ctx, natsio.OutMessage{Subject: subject, Data: latencyValue(i), Header: h}); err != nil {
				return err
			}
		}
		if i < n {
			<-tick.C
		}
	}
	return sink.Flush(ctx)
}

// storedTimes reads stream and returns the JetStream timestamp of each
// latency record by id, after calling check (if any) on it. A repeated id
// fails the benchmark: no mode may duplicate an output when nothing
// crashed.
func storedTimes(b *testing.B, c *natsio.Conn, stream string, check func(natsio.Message)) map[int]time.Time {
	b.Helper()
	times := map[int]time.Time{}
	err := natsio.ReadStored(context.Background(), c, natsio.ReadSpec{Stream: stream}, func(m natsio.Message) error {
		id, ok := latencyID(m.Data)
		if !ok {
			return nil
		}
		if _, dup := times[id]; dup {
			b.Fatalf("stream %s holds record %d twice", stream, id)
		}
		if check != nil {
			check(m)
		}
		times[id] = m.Time
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return times
}

// inputRate is the rate at which the records reached their stream: the
// load's rate unless the publisher fell behind.
func inputRate(in map[int]time.Time) float64 {
	var first, last time.Time
	for _, t := range in {
		if first.IsZero() || t.Before(first) {
			first = t
		}
		if t.After(last) {
			last = t
		}
	}
	if span := last.Sub(first).Seconds(); span > 0 {
		return float64(len(in)-1) / span
	}
	return 0
}
