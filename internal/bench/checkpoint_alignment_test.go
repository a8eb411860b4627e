package bench

import (
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/protocol"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// BenchmarkCheckpointAlignment compares aligned and unaligned checkpoints
// at a two-input operator (internal/testguests/slow2: sum2, the crash
// tests' guest, has no way to make one input slow) whose input 1 is
// slow: its records burn CK_BURN loop iterations each (default 1000).
// CK_SLOW slow records (default 2000, over 1000 keys) and twice as many
// fast ones (over 10000 keys) are published beforehand, so both inputs have
// a backlog. Once CK_WARM records (default 1000) are processed,
// CK_CHECKPOINTS on-demand checkpoints (default 2) are taken back to back;
// reported are the means of their duration, alignment time, longest pause
// and bytes, and the share of them whose manifest says unaligned.
//
// tasks=1: one task gets both inputs. tasks=2: the slow keys all belong to
// task 1 and the fast keys to task 0, so the slow input's source, blocked on
// task 1's full queue, is late with its barrier at task 0.
//
// "stop-ns" is the graceful stop that follows, with the backlog still
// queued: the final checkpoint's barriers wait behind it too.
func BenchmarkCheckpointAlignment(b *testing.B) {
	wasm := testutil.GoGuest(b, "./internal/testguests/slow2")
	for _, tasks := range []int{1, 2} {
		for _, mode := range []protocol.Mode{protocol.Aligned, protocol.Unaligned} {
			b.Run(fmt.Sprintf("tasks=%d/%s", tasks, mode), func(b *testing.B) {
				var sum metricSum
				for i := 0; i < b.N; i++ {
					alignmentOnce(b, wasm, tasks, mode, &sum)
				}
				sum.report(b, b.N)
			})
		}
	}
}

func alignmentOnce(b *testing.B, wasm string, tasks int, mode protocol.Mode, sum *metricSum) {
	burn := []byte(strconv.Itoa(envInt(b, "CK_BURN", 1000)))
	slow := envInt(b, "CK_SLOW", 2000)
	checkpoints := envInt(b, "CK_CHECKPOINTS", 2)
	slowKeys, fastKeys := keysOfTask(tasks-1, tasks, 1000), keysOfTask(0, tasks, 10_000)
	cfg := ckConfig(b, filepath.Join(b.TempDir(), "data"), wasm, 2, tasks)
	p := ckOpen(b, cfg, engine.CheckpointOptions{Interval: -1, Mode: mode, ModeSet: true}, noRecovery)
	defer p.Close()
	publishKeyed(b, p, "in1", slow, func(i int) string { return slowKeys[i%len(slowKeys)] }, func(int) []byte { return burn })
	publishKeyed(b, p, "in0", 2*slow, func(i int) string { return fastKeys[i%len(fastKeys)] }, constValue)
	run := startRun(p)
	run.waitProcessed(b, uint64(envInt(b, "CK_WARM", 1000)))
	measureCheckpoints(b, p, cfg, checkpoints, sum)
	start := time.Now()
	run.finish(b)
	sum.add("stop-ns", float64(time.Since(start)))
}

// measureCheckpoints takes n on-demand checkpoints back to back and adds
// the means of their figures.
func measureCheckpoints(b *testing.B, p *engine.Pipeline, cfg *config.Pipeline, n int, sum *metricSum) {
	weight := 1 / float64(n)
	for range n {
		m := trigger(b, p, cfg)
		addCheckpoint(sum, "ckpt", m, weight)
		sum.add("ckpt-align-ns", weight*float64(m.Metrics.AlignmentNanos))
		unaligned := 0.0
		if m.Metrics.Mode == "unaligned" {
			unaligned = weight
		}
		sum.add("unaligned-share", unaligned)
	}
}

// keysOfTask returns n key names that an operator with the given number of
// tasks (and the default max_parallelism) routes to task.
func keysOfTask(task, tasks, n int) []string {
	var keys []string
	for i := 0; len(keys) < n; i++ {
		k := keyName(i)
		kg := state.KeyGroup([]byte(k), state.DefaultMaxParallelism)
		if state.TaskForKeyGroup(kg, tasks, state.DefaultMaxParallelism) == task {
			keys = append(keys, k)
		}
	}
	return keys
}
