package protocol

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// epoch is the start of every script's manual clock; times print relative
// to it.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func argString(t testing.TB, d *datadriven.TestData, key, def string) string {
	t.Helper()
	if !d.HasArg(key) {
		return def
	}
	var s string
	d.ScanArgs(t, key, &s)
	return s
}

func argInt(t testing.TB, d *datadriven.TestData, key string, def int) int {
	t.Helper()
	s := argString(t, d, key, "")
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s: %s=%q: %v", d.Pos, key, s, err)
	}
	return n
}

func argUint(t testing.TB, d *datadriven.TestData, key string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(argString(t, d, key, "0"), 10, 64)
	if err != nil {
		t.Fatalf("%s: %s: %v", d.Pos, key, err)
	}
	return n
}

func argDuration(t testing.TB, d *datadriven.TestData, key string, def time.Duration) time.Duration {
	t.Helper()
	s := argString(t, d, key, "")
	if s == "" {
		return def
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("%s: %s=%q: %v", d.Pos, key, s, err)
	}
	return v
}

// argUints reads key=1,2,3.
func argUints(t testing.TB, d *datadriven.TestData, key string) []uint64 {
	t.Helper()
	arg, ok := d.Arg(key)
	if !ok {
		return nil
	}
	var out []uint64
	for _, v := range arg.Vals {
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				t.Fatalf("%s: %s: %v", d.Pos, key, err)
			}
			out = append(out, n)
		}
	}
	return out
}

// advance moves the clock by the command's first bare argument (+500ms).
func advance(t testing.TB, d *datadriven.TestData, clock *ManualClock) {
	t.Helper()
	for _, a := range d.CmdArgs {
		if strings.HasPrefix(a.Key, "+") && len(a.Vals) == 0 {
			dur, err := time.ParseDuration(a.Key[1:])
			if err != nil {
				t.Fatalf("%s: %v", d.Pos, err)
			}
			clock.Advance(dur)
		}
	}
}

func since(clock *ManualClock) string {
	return fmt.Sprintf("t=%s", clock.Now().Sub(epoch))
}

func lines[T fmt.Stringer](items []T) string {
	var b strings.Builder
	for _, it := range items {
		b.WriteString(it.String())
		b.WriteByte('\n')
	}
	return b.String()
}
