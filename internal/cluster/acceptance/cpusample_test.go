package acceptance

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// cpuSampleEvery is how often a cpuSampler reads the processes' CPU time.
const cpuSampleEvery = 50 * time.Millisecond

// cpuSampler reads the CPU time of some processes every cpuSampleEvery,
// so that a benchmark can tell what each used between two instants it
// learns only later (from log lines and stream time stamps). Linux only:
// elsewhere every reading is 0.
type cpuSampler struct {
	pids []int
	stop chan struct{}
	done chan struct{}

	mu      sync.Mutex
	samples []cpuSample
}

type cpuSample struct {
	at  time.Time
	cpu []time.Duration // by index of pids
}

func startCPUSampler(pids []int) *cpuSampler {
	s := &cpuSampler{pids: pids, stop: make(chan struct{}), done: make(chan struct{})}
	s.sample()
	go func() {
		defer close(s.done)
		tick := time.NewTicker(cpuSampleEvery)
		defer tick.Stop()
		for {
			select {
			case <-s.stop:
				s.sample()
				return
			case <-tick.C:
				s.sample()
			}
		}
	}()
	return s
}

// sample reads every process's CPU time; one that cannot be read (it
// ended) keeps its previous reading.
func (s *cpuSampler) sample() {
	at := time.Now()
	cpu := make([]time.Duration, len(s.pids))
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, pid := range s.pids {
		d, err := procCPU(pid)
		if err != nil && len(s.samples) > 0 {
			d = s.samples[len(s.samples)-1].cpu[i]
		}
		cpu[i] = d
	}
	s.samples = append(s.samples, cpuSample{at: at, cpu: cpu})
}

// close takes a last sample and stops sampling.
func (s *cpuSampler) close() {
	close(s.stop)
	<-s.done
}

// at is process i's CPU time at the last sample taken at or before t (the
// first sample for an earlier t).
func (s *cpuSampler) at(i int, t time.Time) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.samples[0].cpu[i]
	for _, smp := range s.samples {
		if smp.at.After(t) {
			break
		}
		d = smp.cpu[i]
	}
	return d
}

// between is process i's CPU time from from to to.
func (s *cpuSampler) between(i int, from, to time.Time) time.Duration {
	return s.at(i, to) - s.at(i, from)
}

// procCPU is the user + system time of process pid so far, all its
// threads, from /proc/PID/stat (utime and stime, in clock ticks of
// 1/100 s, Linux's USER_HZ).
func procCPU(pid int) (time.Duration, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// After the command name, which is in parentheses and may hold
	// spaces, come the fields from 3 (state) on: utime is 14, stime 15.
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the command name", pid, len(fields))
	}
	var sum time.Duration
	for _, f := range fields[11:13] {
		ticks, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		sum += time.Duration(ticks) * 10 * time.Millisecond
	}
	return sum, nil
}
