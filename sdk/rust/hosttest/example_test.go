package hosttest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

func TestPaymentRiskGivesThePinnedOutputs(t *testing.T) {
	g := start(t, paymentRisk(t), options{config: `{"max_cents":100000000}`})
	events := []string{
		`{"account":"acct-47","event":"evt-47","cents":1200}`,
		`{"account":"acct-47","event":"evt-48","cents":900}`,
		`{"account":"acct-47","event":"evt-48","cents":900}`,
	}
	outs, err := g.process(t, "acct-47", events[0], "acct-47", events[1], "acct-47", events[2])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"account":"acct-47","event":"evt-47","cents":1200,"total":1200}`,
		`{"account":"acct-47","event":"evt-48","cents":900,"total":2100}`,
	}
	if got := values(outs); !slices.Equal(got, want) {
		t.Fatalf("outputs %q, want %q", got, want)
	}
	for i, o := range outs {
		if h := headerList(t, o.Headers); !slices.Equal(h, []string{"event-id=evt-4" + fmt.Sprint(7+i)}) || string(o.Key) != "acct-47" {
			t.Fatalf("output %d: key %q headers %q", i, o.Key, h)
		}
	}
}

func TestPaymentRiskRejectsBadRecordsAndConfigs(t *testing.T) {
	g := start(t, paymentRisk(t), options{})
	_, err := g.process(t, "a", `{"account":"a","event":"e","cents":-5}`)
	var ge *host.GuestError
	if !errors.As(err, &ge) || !errors.Is(err, host.ErrRecordFailed) || ge.Record != 0 {
		t.Fatalf("negative cents: want ErrRecordFailed at record 0, got %v", err)
	}
	_, err = instantiate(t, compile(t, paymentRisk(t), 0), options{config: `{"max_cent":5}`})
	if !errors.As(err, &ge) || !errors.Is(err, host.ErrInit) || ge.Code != abi.ErrGuestConfig {
		t.Fatalf("misspelt config: want ErrInit with GUEST_CONFIG, got %v", err)
	}
}

// The Rust example must behave as the Go example on every input inside the
// JSON subset both accept identically: same outputs (key, value, headers),
// same rejected records, same state. Each record runs as its own batch, so a
// rejection is visible as the error of that batch.
func TestPaymentRiskMatchesTheGoExample(t *testing.T) {
	type result struct {
		outputs []string
		failed  bool
	}
	run := func(wasm []byte, recs []host.Record) ([]result, *guest) {
		g := start(t, wasm, options{config: `{"max_cents":100000000}`})
		var res []result
		for _, r := range recs {
			outs, err := g.inst.Process(context.Background(), []host.Record{r})
			if err != nil && !errors.Is(err, host.ErrRecordFailed) {
				t.Fatalf("record %q: %v", r.Value, err)
			}
			var o []string
			for _, out := range outs {
				o = append(o, fmt.Sprintf("%q %q %q", out.Key, out.Value, headerList(t, out.Headers)))
			}
			res = append(res, result{outputs: o, failed: err != nil})
		}
		return res, g
	}
	recs := matchRecords()
	rust, rg := run(paymentRisk(t), recs)
	golang, gg := run(testutil.GoGuestBytes(t, "./examples/payment-risk/operator"), recs)
	for i := range recs {
		if !slices.Equal(rust[i].outputs, golang[i].outputs) || rust[i].failed != golang[i].failed {
			t.Errorf("record %d %q: rust %+v, go %+v", i, recs[i].Value, rust[i], golang[i])
		}
	}
	for _, key := range []string{"acct-1", "acct-2", "zürich", "a<&>", ""} {
		for _, name := range []string{"total", "seen\x00e1", "seen\x00e2", "seen\x00e\u2028<>", "seen\x00"} {
			if r, g := stateOf(t, rg, key, name), stateOf(t, gg, key, name); !bytes.Equal(r, g) {
				t.Errorf("state %q %q: rust %x, go %x", key, name, r, g)
			}
		}
	}
}

// matchRecords are payments that exercise every rule of counter.
func matchRecords() []host.Record {
	var recs []host.Record
	add := func(key, value string) { recs = append(recs, host.Record{Key: []byte(key), Value: []byte(value)}) }
	pay := func(key, account, event, cents string) {
		// Strings as they are, not %q: the subset has no escapes.
		add(key, `{"account":"`+account+`","event":"`+event+`","cents":`+cents+`}`)
	}
	pay("acct-1", "acct-1", "e1", "100")
	pay("acct-1", "acct-1", "e1", "100") // duplicate
	pay("acct-1", "acct-1", "e1", "-1")  // rule 1 before the duplicate
	pay("acct-1", "acct-1", "e2", "0")
	pay("acct-1", "acct-1", "e3", "-0")
	pay("acct-1", "acct-1", "e4", "100000000") // the limit, inclusive
	pay("acct-1", "acct-1", "e5", "100000001") // over it
	pay("acct-1", "acct-2", "e6", "5")         // another account than the key
	pay("acct-1", "", "e7", "5")               // empty account
	pay("acct-1", "acct-1", "", "5")           // empty event
	pay("", "", "e8", "5")                     // empty key and account
	pay("acct-2", "acct-2", "e1", "7")         // same event id, other account
	pay("zürich", "zürich", "évt 🙂", "12")
	pay("a<&>", "a<&>", "e\u2028<>", "3")
	pay("a<&>", "a<&>", "e\u2029", "4")
	pay("acct-1", "acct-1", "e9", "1.5")
	pay("acct-1", "acct-1", "e10", "012")
	pay("acct-1", "acct-1", "e11", `"5"`)
	pay("acct-1", "acct-1", "e12", "true")
	pay("acct-1", "acct-1", "e13", "null")
	add("acct-1", `{"account":"acct-1","event":"e14"}`)
	add("acct-1", `{"account":"acct-1","cents":1}`)
	add("acct-1", `{"event":"e15","cents":1}`)
	add("acct-1", `{"account":1,"event":"e16","cents":1}`)
	add("acct-1", `{"account":"acct-1","event":2,"cents":1}`)
	add("acct-1", `  { "cents" : 9 , "event" : "e17" , "account" : "acct-1" , "note" : "x" }  `)
	add("acct-1", `{"account":"acct-1","event":"e18","cents":1} trailing`)
	add("acct-1", `not json`)
	add("acct-1", `[1]`)
	add("acct-1", ``)
	add("acct-1", `{"account":"acct-1","event":"e19","cents":{}}`)
	add("acct-1", "{\"account\":\"acct-1\",\"event\":\"e\x01\",\"cents\":1}")
	return recs
}

// A Rust guest frees what it allocates, so memory must stop growing: the
// second half of the run may not grow it past the first half.
func TestMemoryStaysBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("long: hundreds of thousands of records")
	}
	cases := []struct {
		name   string
		wasm   []byte
		total  int
		record func(n int) host.Record
	}{
		{"payment-risk, distinct events", paymentRisk(t), 200_000, func(n int) host.Record {
			acct := fmt.Sprintf("acct-%d", n%64)
			v := fmt.Sprintf(`{"account":%q,"event":"e%d","cents":1}`, acct, n)
			return host.Record{Key: []byte(acct), Value: []byte(v)}
		}},
		{"64 KiB garbage per record", probe(t), 30_000, func(n int) host.Record {
			return host.Record{Key: []byte("k"), Value: []byte("garbage:65536")}
		}},
		{"state values of 0 to 64 KiB", probe(t), 4_000, func(n int) host.Record {
			return host.Record{Key: []byte(fmt.Sprint(n % 8)), Value: []byte(fmt.Sprintf("big:%d", (n*7919)%(64<<10)))}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := start(t, c.wasm, options{})
			const batch = 512
			recs := make([]host.Record, batch)
			var half uint32
			for done := 0; done < c.total; done += batch {
				for i := range recs {
					recs[i] = c.record(done + i)
				}
				if _, err := g.inst.Process(context.Background(), recs); err != nil {
					t.Fatalf("after %d records (%d pages): %v", done, g.inst.MemoryPages(), err)
				}
				if done <= c.total/2 {
					half = g.inst.MemoryPages()
				}
			}
			end := g.inst.MemoryPages()
			t.Logf("memory: %d pages at half, %d pages after %d records", half, end, c.total)
			if end > half {
				t.Fatalf("memory still growing: %d pages at half, %d at the end", half, end)
			}
		})
	}
}
