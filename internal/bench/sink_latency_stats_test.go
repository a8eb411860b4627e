package bench

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"testing"
	"time"
)

// Latency records carry their id in the first latencyIDLen bytes of their
// value (the B1 guest emits the value unchanged), so an output is matched
// to its input whatever order or batch the pipeline put it in.
const latencyIDLen = 12

// errLatencyMatch says inputs and outputs do not pair one to one.
var errLatencyMatch = errors.New("inputs and outputs do not pair one to one")

// latencyValue is the 100-byte value of latency record i.
func latencyValue(i int) []byte {
	v := fmt.Appendf(make([]byte, 0, b1ValueLen), "%0*d", latencyIDLen, i)
	for len(v) < b1ValueLen {
		v = append(v, 'x')
	}
	return v
}

// latencyID reads the id of a latency record's value; other values (the
// warm-up record) have none.
func latencyID(v []byte) (int, bool) {
	if len(v) < latencyIDLen {
		return 0, false
	}
	id, err := strconv.ParseUint(string(v[:latencyIDLen]), 10, 63)
	if err != nil {
		return 0, false
	}
	return int(id), true
}

// matchLatencies returns, sorted, out[id] - in[id] in milliseconds for
// every id. Every input must have exactly one output and the reverse: the
// maps are built from stored messages, so a lost output shows as a
// missing id and a repeated one is refused when the map is built.
func matchLatencies(in, out map[int]time.Time) ([]float64, error) {
	lat := make([]float64, 0, len(in))
	for id, t := range in {
		o, ok := out[id]
		if !ok {
			return nil, fmt.Errorf("%w: input %d has no output (%d inputs, %d outputs)", errLatencyMatch, id, len(in), len(out))
		}
		lat = append(lat, float64(o.Sub(t))/float64(time.Millisecond))
	}
	for id := range out {
		if _, ok := in[id]; !ok {
			return nil, fmt.Errorf("%w: output %d has no input", errLatencyMatch, id)
		}
	}
	sort.Float64s(lat)
	return lat, nil
}

// percentile is the nearest-rank p-th percentile (0 < p ≤ 100) of sorted:
// a value that was measured, never an interpolation.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	k := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(k, 1), len(sorted))-1]
}

func TestLatencyID(t *testing.T) {
	for _, tc := range []struct {
		value []byte
		id    int
		ok    bool
	}{
		{latencyValue(0), 0, true},
		{latencyValue(123456), 123456, true},
		{[]byte("warm"), 0, false},
		{[]byte("warm-up-record-with-a-long-value"), 0, false},
		{[]byte("-00000000001xxx"), 0, false},
		{[]byte("+00000000001xxx"), 0, false},
	} {
		if id, ok := latencyID(tc.value); id != tc.id || ok != tc.ok {
			t.Errorf("latencyID(%q) = %d, %v; want %d, %v", tc.value, id, ok, tc.id, tc.ok)
		}
	}
	if n := len(latencyValue(7)); n != b1ValueLen {
		t.Errorf("latency values are %d bytes, want %d like B1's", n, b1ValueLen)
	}
}

func TestMatchLatencies(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	for _, tc := range []struct {
		name    string
		in, out map[int]time.Time
		want    []float64
		err     error
	}{
		{"paired, sorted", map[int]time.Time{1: ms(0), 2: ms(10), 3: ms(20)}, map[int]time.Time{1: ms(30), 2: ms(12), 3: ms(25)}, []float64{2, 5, 30}, nil},
		{"sub-millisecond", map[int]time.Time{7: t0}, map[int]time.Time{7: t0.Add(250 * time.Microsecond)}, []float64{0.25}, nil},
		{"empty", map[int]time.Time{}, map[int]time.Time{}, []float64{}, nil},
		{"lost output", map[int]time.Time{1: ms(0), 2: ms(1)}, map[int]time.Time{1: ms(5)}, nil, errLatencyMatch},
		{"output of no input", map[int]time.Time{1: ms(0)}, map[int]time.Time{1: ms(5), 9: ms(6)}, nil, errLatencyMatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := matchLatencies(tc.in, tc.out)
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if tc.err == nil && !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("latencies %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	hundred := make([]float64, 100)
	for i := range hundred {
		hundred[i] = float64(i + 1)
	}
	for _, tc := range []struct {
		sorted []float64
		p      float64
		want   float64
	}{
		{nil, 50, 0},
		{[]float64{4}, 50, 4},
		{[]float64{4}, 99, 4},
		{[]float64{1, 2}, 50, 1},
		{[]float64{1, 2, 3}, 50, 2},
		{hundred, 50, 50},
		{hundred, 99, 99},
		{hundred, 100, 100},
		{hundred[:10], 99, 10},
	} {
		if got := percentile(tc.sorted, tc.p); got != tc.want {
			t.Errorf("percentile(%v, %v) = %v, want %v", tc.sorted, tc.p, got, tc.want)
		}
	}
}
