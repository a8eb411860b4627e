package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// clusterBase is a valid pipeline on a server at url without a cluster block, to which tests
// append one.
const clusterBase = `name = "p"
server {
  url = "nats://n1:4222,nats://n2:4222"
}
stream "S" {
  subjects = ["in.>", "out.>"]
}
source "in" {
  stream  = "S"
  subject = "in.>"
}
operator "o" {
  module = "o.wasm"
  inputs = ["in"]
  key {
    json_field = "id"
  }
  outputs = { out = "out" }
}
sink "out" {
  subject = "out.x"
}
`

// TestClusterDecode: every attribute left out keeps its default, each written one replaces
// only its own, the boundaries are accepted, and a lease shorter than 10 s warns.
func TestClusterDecode(t *testing.T) {
	def := defaultCluster()
	with := func(change func(*Cluster)) Cluster {
		c := def
		change(&c)
		return c
	}
	for _, tc := range []struct {
		block    string
		want     Cluster
		warnings int
	}{
		{"", def, 0},
		{"cluster {}", def, 0},
		{`cluster { replicas = null }`, def, 0},
		{`cluster { replicas = 1 }`, with(func(c *Cluster) { c.Replicas = 1 }), 0},
		{`cluster { replicas = "5" }`, with(func(c *Cluster) { c.Replicas = 5 }), 0},
		{`cluster { worker_timeout = "1s" }`, with(func(c *Cluster) { c.WorkerTimeout = time.Second }), 0},
		{`cluster { worker_timeout = "14.9s" }`, with(func(c *Cluster) { c.WorkerTimeout = 14900 * time.Millisecond }), 0},
		{"cluster {\n worker_timeout = \"10m\"\n lease_ttl = \"1h\"\n}", with(func(c *Cluster) {
			c.WorkerTimeout, c.LeaseTTL = 10*time.Minute, time.Hour
		}), 0},
		{`cluster { lease_ttl = "10s" }`, with(func(c *Cluster) { c.LeaseTTL = 10 * time.Second }), 0},
		{`cluster { lease_ttl = "5001ms" }`, with(func(c *Cluster) { c.LeaseTTL = 5001 * time.Millisecond }), 1},
		{"cluster {\n worker_timeout = \"1s\"\n lease_ttl = \"3s\"\n}", with(func(c *Cluster) {
			c.WorkerTimeout, c.LeaseTTL = time.Second, 3*time.Second
		}), 1},
		{"cluster {\n worker_timeout = \"9s\"\n lease_ttl = \"9999ms\"\n}", with(func(c *Cluster) {
			c.WorkerTimeout, c.LeaseTTL = 9*time.Second, 9999*time.Millisecond
		}), 1},
		{`cluster { stabilization = "0s" }`, with(func(c *Cluster) { c.Stabilization = 0 }), 0},
		{`cluster { stabilization = "10m" }`, with(func(c *Cluster) { c.Stabilization = 10 * time.Minute }), 0},
	} {
		p, diags, err := Parse([]byte(clusterBase+tc.block+"\n"), "/cfg/p.hcl")
		if err != nil {
			t.Errorf("%s: %v", tc.block, err)
			continue
		}
		got := p.Cluster
		if (got.Range.Start.Line == 0) != (tc.block == "") {
			t.Errorf("%s: range %v", tc.block, got.Range)
		}
		got.Range = tc.want.Range
		if got != tc.want || len(diags.Warnings()) != tc.warnings {
			t.Errorf("%s:\n got  %+v, warnings %v\n want %+v and %d warnings", tc.block, got, diags, tc.want, tc.warnings)
		}
	}
}

// TestClusterShortLeaseWarning: the warning is at lease_ttl's value and says why.
func TestClusterShortLeaseWarning(t *testing.T) {
	src := clusterBase + "cluster {\n  worker_timeout = \"2s\"\n  lease_ttl      = \"9s\"\n}\n"
	_, diags, err := Parse([]byte(src), "p.hcl")
	want := `p.hcl:25:20: warning: cluster: lease_ttl: "9s" is short: a NATS leader election takes 4-9 s; ` +
		"a lease shorter than about 10 s can expire during one and move work needlessly"
	if err != nil || len(diags) != 1 || !strings.HasPrefix(diags[0].String(), want) {
		t.Errorf("short lease: %v (%v), want one warning starting %q", diags, err, want)
	}
}

// TestClusterErrors: each value out of range is an error at the attribute's value that names
// the block and the setting, and wraps ErrInvalid. Messages are in the golden files; this table
// pins the boundaries.
func TestClusterErrors(t *testing.T) {
	for _, tc := range []struct{ attr, value, want string }{
		{"replicas", `0`, "must be from 1 to 5, got 0"},
		{"replicas", `6`, "must be from 1 to 5, got 6"},
		{"replicas", `2.5`, "must be a whole number"},
		{"replicas", `"three"`, "must be a whole number"},
		{"worker_timeout", `"999ms"`, `must be from "1s" to "10m", got "999ms"`},
		{"worker_timeout", `"10m1s"`, `must be from "1s" to "10m", got "10m1s"`},
		{"worker_timeout", `"-5s"`, `must be from "1s" to "10m"`},
		{"worker_timeout", `"soon"`, "is not a duration"},
		{"worker_timeout", `5`, "is not a duration"},
		{"lease_ttl", `"2999ms"`, `must be from "3s" to "1h", got "2999ms"`},
		{"lease_ttl", `"61m"`, `must be from "3s" to "1h", got "61m"`},
		{"lease_ttl", `["15s"]`, "must be a string"},
		{"stabilization", `"-1ns"`, `must be from "0s" to "10m", got "-1ns"`},
		{"stabilization", `"11m"`, `must be from "0s" to "10m", got "11m"`},
		// Relative to the other setting's default: lease_ttl 15s, worker_timeout 5s.
		{"lease_ttl", `"5s"`, `"5s" must be greater than worker_timeout "5s"`},
		{"lease_ttl", `"4s"`, `raise lease_ttl above "5s" or lower worker_timeout`},
		{"worker_timeout", `"15s"`, `"15s" must be less than lease_ttl "15s" (the default)`},
		{"worker_timeout", `"1m"`, `lower worker_timeout, or set lease_ttl above "1m"`},
	} {
		src := clusterBase + "cluster {\n  " + tc.attr + " = " + tc.value + "\n}\n"
		_, diags, err := Parse([]byte(src), "p.hcl")
		prefix := "p.hcl:24:"
		if len(diags) != 1 || !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), prefix) ||
			!strings.Contains(err.Error(), "cluster: "+tc.attr+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s = %s: got %v, want one error at %s about %s containing %q", tc.attr, tc.value, diags, prefix, tc.attr, tc.want)
		}
	}
}

// TestClusterLeaseAboveTimeout: with both written, the error is at lease_ttl and names both
// values; an invalid one of the two is reported alone.
func TestClusterLeaseAboveTimeout(t *testing.T) {
	for _, tc := range []struct{ block, want string }{
		{"cluster {\n  worker_timeout = \"30s\"\n  lease_ttl      = \"20s\"\n}\n",
			`p.hcl:25:20: cluster: lease_ttl: "20s" must be greater than worker_timeout "30s": a worker fences itself when its lease expires`},
		{"cluster {\n  lease_ttl      = \"20s\"\n  worker_timeout = \"20s\"\n}\n",
			`p.hcl:24:20: cluster: lease_ttl: "20s" must be greater than worker_timeout "20s"`},
		{"cluster {\n  worker_timeout = \"1h\"\n  lease_ttl      = \"20s\"\n}\n",
			`p.hcl:24:20: cluster: worker_timeout: must be from "1s" to "10m", got "1h"`},
		{"cluster {\n  worker_timeout = \"30s\"\n  lease_ttl      = \"1s\"\n}\n",
			`p.hcl:25:20: cluster: lease_ttl: must be from "3s" to "1h", got "1s"`},
	} {
		_, diags, err := Parse([]byte(clusterBase+tc.block), "p.hcl")
		if len(diags) != 1 || !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want one error starting %q", tc.block, diags, tc.want)
		}
	}
}

// TestClusterNeedsServerURL: with the embedded server a cluster block is an error at its header,
// wherever the server block is; with a server at url it is not.
func TestClusterNeedsServerURL(t *testing.T) {
	embedded := strings.Replace(clusterBase, "server {\n  url = \"nats://n1:4222,nats://n2:4222\"\n}\n", "", 1)
	want := "a cluster block needs server.url: workers share a pipeline through a NATS JetStream cluster; " +
		"the embedded server serves one process (use `wasmstream run`)"
	for _, tc := range []struct {
		src  string
		line int // of the error; 0: none
	}{
		{embedded + "cluster {}\n", 20},
		{"cluster {\n  replicas = 1\n}\n" + embedded, 1},
		{embedded + "cluster {}\nserver {\n  url = \"\"\n}\n", 20},
		{embedded + "cluster {}\nserver {\n  url = \"nats://n1:4222\"\n}\n", 0},
		{"cluster {}\n" + clusterBase, 0},
		{embedded, 0},
	} {
		_, diags, err := Parse([]byte(tc.src), "p.hcl")
		switch {
		case tc.line == 0 && err != nil:
			t.Errorf("%s: %v", tc.src, err)
		case tc.line != 0 && (len(diags) != 1 || !errors.Is(err, ErrInvalid) || diags[0].Message != want || diags[0].Range.Start.Line != tc.line):
			t.Errorf("%s: got %v, want one error at line %d: %s", tc.src, diags, tc.line, want)
		}
	}
}

// TestClusterOnce: a second block is an error at its header that points at the first, and an
// unknown setting is refused.
func TestClusterOnce(t *testing.T) {
	for _, tc := range []struct{ block, want string }{
		{"cluster {\n  replicas = 5\n}\ncluster {\n  replicas = 1\n}\n",
			"p.hcl:26:1: cluster: only one cluster block is allowed (first at p.hcl:23:1)"},
		{"cluster {\n  workers_timeout = \"5s\"\n}\n",
			`p.hcl:24:3: cluster: Unsupported argument; An argument named "workers_timeout" is not expected here. Did you mean "worker_timeout"?`},
		{"cluster {\n  state_cache {}\n}\n", `p.hcl:24:3: cluster: Unsupported block type`},
	} {
		_, _, err := Parse([]byte(clusterBase+tc.block), "p.hcl")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.block, err, tc.want)
		}
	}
}

// TestClusterPrinted: the effective config prints the cluster block, defaults filled in, when
// the server is at url, and it reads back; with the embedded server, where it cannot be used,
// it is left out.
func TestClusterPrinted(t *testing.T) {
	embedded := strings.Replace(clusterBase, "server {\n  url = \"nats://n1:4222,nats://n2:4222\"\n}\n", "", 1)
	for _, tc := range []struct {
		src  string
		want string // "": no cluster block printed
	}{
		{clusterBase, "cluster {\n  replicas       = 3\n  worker_timeout = \"5s\"\n  lease_ttl      = \"15s\"\n  stabilization  = \"2s\"\n}\n"},
		{clusterBase + "cluster {\n  replicas = 1\n  lease_ttl = \"1h\"\n  stabilization = \"0s\"\n}\n",
			"cluster {\n  replicas       = 1\n  worker_timeout = \"5s\"\n  lease_ttl      = \"1h0m0s\"\n  stabilization  = \"0s\"\n}\n"},
		{embedded, ""},
	} {
		p, _, err := Parse([]byte(tc.src), "/cfg/p.hcl")
		if err != nil {
			t.Fatal(err)
		}
		printed := p.String()
		if tc.want == "" && strings.Contains(printed, "cluster") || !strings.Contains(printed, tc.want) {
			t.Errorf("printed config, want cluster block %q:\n%s", tc.want, printed)
		}
		again, _, err := Parse([]byte(printed), "/cfg/p.hcl")
		if err != nil {
			t.Fatalf("printed config does not read back: %v\n%s", err, printed)
		}
		got, want := again.Cluster, p.Cluster
		got.Range, want.Range = hcl.Range{}, hcl.Range{}
		if got != want {
			t.Errorf("read back as %+v, want %+v", got, want)
		}
	}
}
