package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/engine/recovery"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// Subjects of the chain pipeline's sinks.
const (
	chainSubjectMid   = "chain.mid"
	chainSubjectFinal = "chain.final"
)

// chainSetup describes a pipeline of sum2 stages that read each other through exchange
// streams: source "a" feeds s1, s1's internal output feeds s2 (keyed by the key s1 emitted,
// Wasmstream-Key, unless s2Key says otherwise), and with three stages s2's output goes both to
// sink "mid" and to s3. The last stage's output goes to sink "final". Every stage sums the "v"
// of the records of each key, so each one's state, whatever the parallelism, is the reference
// sum of the input; and every stage emits one output per record.
type chainSetup struct {
	dataDir, module string
	port            int
	stages          int           // 2 or 3
	s2Key           string        // the key block of s2's input block; "": the emitted key
	s2Source        bool          // s2 reads source "b" too, as its second input
	interval        time.Duration // checkpoint interval; 0: none but the final one
	s2Parallelism   int           // the middle stage's; 0: 3
	route           bool          // source "a" is routed (config.Source.Route)
}

func newChainSetup(t *testing.T, stages int) chainSetup {
	t.Helper()
	s := chainSetup{dataDir: testutil.PrivateTempDir(t), port: testutil.FreePort(t), module: testutil.GoGuest(t, sum2Pkg), stages: stages}
	seedCompilationCache(t, s.dataDir, s.module)
	return s
}

func (s chainSetup) load(t *testing.T) *config.Pipeline {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pipeline.hcl")
	if err := os.WriteFile(path, []byte(chainHCL(t, s)), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// chainHCL is the pipeline file of s.
func chainHCL(t *testing.T, s chainSetup) string {
	t.Helper()
	s2Key := s.s2Key
	if s2Key == "" {
		s2Key = `header = "Wasmstream-Key"`
	}
	s2Out, s3, s2Inputs := `{ out = "final" }`, "", `"s1.out"`
	s2Parallelism := s.s2Parallelism
	if s2Parallelism == 0 {
		s2Parallelism = 3
	}
	if s.s2Source {
		s2Inputs += `, "b"`
		s3 += fmt.Sprintf("stream \"SUMB\" { subjects = [\"sumb.>\"] }\nsource \"b\" {\n  stream  = \"SUMB\"\n  subject = %q\n}\n", sumSubjectB)
	}
	if s.stages == 3 {
		s2Out = `{ out = "mid" }`
		s3 += fmt.Sprintf(`
operator "s3" {
  module      = %q
  inputs      = ["s2.out"]
  parallelism = 2
  key { json_field = "k" }
  outputs = { out = "final" }
}
sink "mid" { subject = %q }
`, s.module, chainSubjectMid)
	}
	src := fmt.Sprintf(`
name     = "chain"
data_dir = %q
server { embedded_port = %d }
checkpoint { retain = 3 }
exchange { duplicate_window = "3h" }
stream "SUMA" { subjects = ["suma.>"] }
stream "CHAIN" {
  subjects         = ["chain.>"]
  duplicate_window = "10m"
}
source "a" {
  stream  = "SUMA"
  subject = %q
  route   = %t
}
operator "s1" {
  module           = %q
  inputs           = ["a"]
  parallelism      = 2
  key { json_field = "k" }
  internal_outputs = ["out"]
}
operator "s2" {
  module          = %q
  inputs          = [%s]
  parallelism     = %d
  max_parallelism = 32
  input "s1.out" {
    key { %s }
  }
  key { json_field = "k" }
  outputs = %s
}
%s
sink "final" { subject = %q }
`, s.dataDir, s.port, sumSubjectA, s.route, s.module, s.module, s2Inputs, s2Parallelism, s2Key, s2Out, s3, chainSubjectFinal)
	return src
}

// options are the run options of the setup: its checkpoint interval.
func (s chainSetup) options() Options {
	return Options{Checkpoint: CheckpointOptions{Interval: s.interval}}
}

// chainRecords are n records of source a over keys keys.
func chainRecords(n, keys, seed int) []sumRecord {
	recs := sumRecords(n, keys, seed)
	for i := range recs {
		recs[i].input = 0
	}
	return recs
}

// stageSums decodes the sums of each stage in a state dump: operator -> sum-0/key -> sum.
func stageSums(t *testing.T, entries []StateEntry) map[string]map[string]int64 {
	t.Helper()
	got := map[string]map[string]int64{}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name, "sum-") {
			continue
		}
		if len(e.Value) != 8 {
			t.Fatalf("unexpected state entry %+v", e)
		}
		if got[e.Operator] == nil {
			got[e.Operator] = map[string]int64{}
		}
		got[e.Operator][sumsKey(e.Name, e.Key)] = int64(binary.LittleEndian.Uint64(e.Value))
	}
	return got
}

// chainWant is the reference state of each stage of the chain over recs: s1 sums the records
// of source a; s2 sums what s1 emits (one output per record, with its "v") and, with s2Source,
// source b's records as its input 1; s3 sums everything s2 emits, all on its input 0.
func chainWant(recs []sumRecord) map[string]map[string]int64 {
	var fromA []sumRecord
	all := make([]sumRecord, len(recs))
	for i, r := range recs {
		if r.input == 0 {
			fromA = append(fromA, r)
		}
		all[i] = sumRecord{key: r.key, v: r.v}
	}
	return map[string]map[string]int64{"s1": expectedSums(fromA), "s2": expectedSums(recs), "s3": expectedSums(all)}
}

// checkChain checks the newest checkpoint and the sinks against the reference of recs: every
// stage's sums, exactly one output per record on each sink the stages feed (none lost, none
// twice), and the last output of each key carrying its total.
func checkChain(t *testing.T, s chainSetup, cfg *config.Pipeline, recs []sumRecord) {
	t.Helper()
	want := chainWant(recs)
	sums := stageSums(t, dumpState(t, cfg, newestCheckpoint(t, cfg).ID))
	for stage := 1; stage <= s.stages; stage++ {
		name := fmt.Sprintf("s%d", stage)
		diffSums(t, "operator "+name, sums[name], want[name])
	}
	sinks := map[string]string{chainSubjectFinal: fmt.Sprintf("s%d", s.stages)}
	if s.stages == 3 {
		sinks[chainSubjectMid] = "s2"
	}
	for subject, stage := range sinks {
		msgs := readSubject(t, cfg, subject)
		if len(msgs) != len(recs) {
			t.Errorf("sink subject %s holds %d outputs, want one per record: %d", subject, len(msgs), len(recs))
		}
		diffSums(t, "last outputs on "+subject, lastSums(t, msgs), want[stage])
	}
}

// Pipelines of two and three stages run in one process through exchange streams, with
// checkpoints taken while records flow: each stage's state and each sink's outputs equal the
// reference, and a graceful stop's final checkpoint is drained: the next run replays nothing.
func TestGraphRunsStages(t *testing.T) {
	for _, tc := range []struct {
		stages int
		route  bool
	}{{2, false}, {3, false}, {2, true}} {
		stages := tc.stages
		t.Run(fmt.Sprintf("%d stages, routed source %t", stages, tc.route), func(t *testing.T) {
			s := newChainSetup(t, stages)
			s.interval, s.route = 100*time.Millisecond, tc.route
			cfg := s.load(t)
			recs := chainRecords(1500, 40, stages)
			stats := runSums(t, cfg, s.options(), recs)
			if stats.DeadLettered != 0 || stats.Restarts != 0 {
				t.Errorf("stats %+v: nothing should fault or be dead-lettered", stats)
			}
			if want := uint64(stages * len(recs)); stats.Processed != want {
				t.Errorf("processed %d records, want %d (every stage processes every record once)", stats.Processed, want)
			}
			checkChain(t, s, cfg, recs)
			checkTrimmed(t, cfg)

			again := runSums(t, cfg, Options{}, nil)
			if again.Processed != 0 || again.Read != 0 {
				t.Errorf("the run after a graceful stop read %d and processed %d records, want none: the final checkpoint was not drained", again.Read, again.Processed)
			}
			checkChain(t, s, cfg, recs)
		})
	}
}

// checkTrimmed checks that the exchange streams keep what the oldest retained checkpoint
// resumes from and nothing much older: a run that completed more checkpoints than it retains
// trimmed them (FORMAT.md §2, "Trimming").
func checkTrimmed(t *testing.T, cfg *config.Pipeline) {
	t.Helper()
	ids, err := checkpoint.List(CheckpointRoot(cfg))
	if err != nil {
		t.Fatal(err)
	}
	resume := recovery.ResumePoints(readManifest(t, cfg, ids[len(ids)-1]))
	c, err := ConnectClient(context.Background(), cfg, hclog.NewNullLogger(), AsControl)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, e := range cfg.Graph().Edges {
		input := e.From + "." + e.Output
		switch e.Kind {
		case config.EdgeExchange:
		case config.EdgeRouted:
			input = routedSourceName(e.From, e.To)
		default:
			continue
		}
		st, err := c.JS.Stream(context.Background(), e.Stream)
		if err != nil {
			t.Fatal(err)
		}
		first := st.CachedInfo().State.FirstSeq
		if w := st.CachedInfo().Config.Duplicates; w != cfg.Exchange.DuplicateWindow {
			t.Errorf("exchange stream %s remembers ids for %s, want the exchange block's %s", e.Stream, w, cfg.Exchange.DuplicateWindow)
		}
		if _, ok := resume[input]; !ok {
			t.Errorf("the oldest retained checkpoint has no position of %s, which reads exchange stream %s", input, e.Stream)
		}
		switch {
		case first > resume[input]:
			t.Errorf("exchange stream %s starts at %d, after %d where the oldest retained checkpoint %d resumes %s", e.Stream, first, resume[input], ids[len(ids)-1], input)
		case first <= 1 && ids[0] > uint64(cfg.Checkpoint.Retain)+1:
			t.Errorf("exchange stream %s was never trimmed after %d checkpoints", e.Stream, ids[0])
		case first <= 1:
			t.Logf("exchange stream %s not trimmed: the run completed only %d checkpoints", e.Stream, ids[0])
		}
	}
}

// An operator that reads another operator's output and a source, in aligned mode (the
// default) with checkpoints while records flow: the source's barrier is held until the
// exchange's arrives at the producer's marker, and the state and outputs equal the reference.
func TestGraphMixesExchangeAndSourceInputs(t *testing.T) {
	s := newChainSetup(t, 2)
	s.s2Source, s.interval = true, 50*time.Millisecond
	cfg := s.load(t)
	recs := sumRecords(1500, 30, 8) // both inputs: a through s1, b straight into s2
	stats := runSums(t, cfg, s.options(), recs)
	if stats.DeadLettered != 0 || stats.Restarts != 0 {
		t.Errorf("stats %+v: nothing should fault or be dead-lettered", stats)
	}
	checkChain(t, s, cfg, recs)
	if again := runSums(t, cfg, Options{}, nil); again.Processed != 0 || again.Read != 0 {
		t.Errorf("the run after a graceful stop read %d and processed %d records, want none", again.Read, again.Processed)
	}
}

// errSimulatedCrash stops a run as a crash would: without a final checkpoint.
var errSimulatedCrash = errors.New("simulated crash")

// A run that stops without a final checkpoint in the middle of its input, with records in
// every stage and in the exchange streams, restarts from its last checkpoint: the sinks hold
// one output per record (none lost, none twice) and every stage's state equals the reference.
//
// With the source routed, the router's replay republishes what it routed after its checkpoint
// into the first exchange, whose duplicate window drops it.
func TestGraphRecoversFromCrash(t *testing.T) {
	skipInRacePass(t)
	for _, route := range []bool{false, true} {
		t.Run(fmt.Sprintf("routed source %t", route), func(t *testing.T) {
			s := newChainSetup(t, 3)
			s.interval, s.route = 50*time.Millisecond, route
			cfg := s.load(t)
			batch1, batch2 := chainRecords(1200, 30, 5), chainRecords(1200, 30, 6)
			crashMidInput(t, cfg, s.options(), batch1, batch2)
			restored := runSums(t, cfg, Options{}, nil)
			m := newestCheckpoint(t, cfg)
			if m.Metrics.Recovery == nil {
				t.Fatalf("checkpoint %d: the run after the crash did not restore a checkpoint", m.ID)
			}
			if restored.Processed == 0 {
				t.Log("the restored run processed nothing: the crash left nothing to replay")
			}
			checkChain(t, s, cfg, append(append([]sumRecord(nil), batch1...), batch2...))
		})
	}
}

// crashMidInput runs cfg on before until every record went through the first stage and a
// checkpoint completed, then sends during and stops the run as a crash would (no final
// checkpoint) with during in flight.
func crashMidInput(t *testing.T, cfg *config.Pipeline, opts Options, before, during []sumRecord) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opts.StopWhenIdle = -1
	p, err := Open(ctx, cfg, quietOptions(t, opts))
	if err != nil {
		t.Fatal(err)
	}
	processedBefore := p.Stats().Processed
	firstID := newestID(cfg)
	fed := make(chan error, 1)
	go func() {
		err := sendSums(p.Reach(), before, 0)
		for err == nil && p.Stats().Processed < processedBefore+uint64(len(before)) {
			time.Sleep(time.Millisecond)
		}
		for err == nil && newestID(cfg) < firstID+2 {
			time.Sleep(time.Millisecond)
		}
		if err == nil {
			err = sendSums(p.Reach(), during, 0)
		}
		p.fail(errSimulatedCrash) // with during in flight
		fed <- err
	}()
	runErr := p.Run(ctx)
	if err := <-fed; err != nil {
		t.Fatal(err)
	}
	p.Close()
	if !errors.Is(runErr, errSimulatedCrash) {
		t.Fatalf("run: %v, want the simulated crash", runErr)
	}
}

// The middle stage of a three-stage graph rescales 2 -> 6 -> 3 from checkpoints: first from a
// graceful stop's final checkpoint, then from the last periodic checkpoint of a run that
// crashed with records in every stage and in the exchange streams. The key groups of the
// middle stage move between tasks, the exchange streams (keyed by key group, not by task) are
// read on from their recorded positions, and in the end every stage's state and every sink's
// outputs equal the reference: none lost, none twice.
func TestGraphRescalesTheMiddleStage(t *testing.T) {
	skipInRacePass(t)
	s := newChainSetup(t, 3)
	s.interval = 50 * time.Millisecond
	s.s2Parallelism = 2
	b1, b2, b3, b4 := chainRecords(600, 30, 11), chainRecords(600, 30, 12), chainRecords(600, 30, 13), chainRecords(600, 30, 14)
	var all []sumRecord
	cfg := s.load(t)
	runSums(t, cfg, s.options(), b1)
	all = append(all, b1...)
	checkChain(t, s, cfg, all)

	s.s2Parallelism = 6
	cfg = s.load(t)
	crashMidInput(t, cfg, s.options(), b2, b3)
	all = append(append(all, b2...), b3...)

	s.s2Parallelism = 3
	cfg = s.load(t)
	runSums(t, cfg, Options{}, b4)
	all = append(all, b4...)
	m := newestCheckpoint(t, cfg)
	if m.Metrics.Recovery == nil {
		t.Fatalf("checkpoint %d: the run at parallelism 3 restored no checkpoint", m.ID)
	}
	if got := len(m.Operators[1].Tasks); m.Operators[1].Name != "s2" || got != 3 {
		t.Errorf("checkpoint %d: operator %q has %d task entries, want s2 with 3", m.ID, m.Operators[1].Name, got)
	}
	checkChain(t, s, cfg, all)
}

// newestID is the newest checkpoint's id; 0 when none.
func newestID(cfg *config.Pipeline) uint64 {
	ids, err := checkpoint.List(CheckpointRoot(cfg))
	if err != nil || len(ids) == 0 {
		return 0
	}
	return ids[0]
}

// A record whose output lacks the key the reading operator's input needs is the producer's
// dead letter, with a reason naming the edge: not published to the exchange, not skipped
// silently, and its state writes discarded.
func TestGraphDeadLettersOutputsWithoutTheConsumerKey(t *testing.T) {
	s := newChainSetup(t, 2)
	s.s2Key = `header = "Region"`
	cfg := s.load(t)
	recs := chainRecords(40, 5, 7)
	stats := runSums(t, cfg, Options{}, recs)
	if stats.DeadLettered != uint64(len(recs)) || stats.Processed != 0 {
		t.Fatalf("stats %+v: want every record dead-lettered by s1 and none processed", stats)
	}
	dead := readSubject(t, cfg, cfg.Operator("s1").DeadLetterSubject)
	if len(dead) != len(recs) {
		t.Fatalf("%d dead letters on %s, want %d", len(dead), cfg.Operator("s1").DeadLetterSubject, len(recs))
	}
	reason := dead[0].Header.Get(HeaderError)
	for _, want := range []string{`operator "s2"`, "exchange s1.out -> s2", `input "s1.out"`, `header "Region"`} {
		if !strings.Contains(reason, want) {
			t.Errorf("dead-letter reason %q lacks %q", reason, want)
		}
	}
	if sums := stageSums(t, dumpState(t, cfg, newestCheckpoint(t, cfg).ID)); len(sums) != 0 {
		t.Errorf("state %v, want none: a dead-lettered record leaves no state", sums)
	}
	if out := readSubject(t, cfg, chainSubjectFinal); len(out) != 0 {
		t.Errorf("%d outputs on %s, want none", len(out), chainSubjectFinal)
	}
}

// Two operators read one output (s2 and s3 both read s1.out), each through a stream of its own:
// the first in the file under the output's name, the other as "s1.out>s3". After a crash with
// records in every stream, each reader's state and sink equal the reference. Reordering the
// readers would rename their positions: a restore refuses it, naming the output.
func TestGraphTwoReadersOfOneOutput(t *testing.T) {
	skipInRacePass(t)
	s := newChainSetup(t, 3)
	s.interval = 50 * time.Millisecond
	src := strings.Replace(chainHCL(t, s), `inputs      = ["s2.out"]`, `inputs      = ["s1.out"]`, 1)
	cfg := loadChainText(t, src)
	batch1, batch2 := chainRecords(1000, 30, 21), chainRecords(1000, 30, 22)
	crashMidInput(t, cfg, s.options(), batch1, batch2)
	runSums(t, cfg, Options{}, nil)
	checkChain(t, s, cfg, slices.Concat(batch1, batch2))
	m := newestCheckpoint(t, cfg)
	for _, name := range []string{"s1.out", "s1.out>s3"} {
		if _, ok := recovery.Source(m, name); !ok {
			t.Errorf("checkpoint %d has no position of %s", m.ID, name)
		}
	}

	// s2's block moved after s3's: s3 becomes the first reader.
	block := src[strings.Index(src, `operator "s2" {`):]
	block = block[:strings.Index(block, "\n}\n")+3]
	reordered := loadChainText(t, strings.Replace(src, block, "", 1)+block)
	err := openRefused(t, reordered, Options{})
	if !errors.Is(err, ErrRecovery) || !strings.Contains(err.Error(), `the operators reading "s1.out" changed order`) {
		t.Fatalf("opening with the readers reordered: %v, want ErrRecovery naming the order of s1.out's readers", err)
	}
}

// loadChainText loads a chain pipeline from its text.
func loadChainText(t *testing.T, src string) *config.Pipeline {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pipeline.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
