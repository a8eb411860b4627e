package layering

import (
	"strings"
	"testing"
)

// rule is what one package pattern must not depend on. Add a row to rules
// for a new layer; RATIONALE.md ("Layering") says why each exists.
type rule struct {
	// pkg is a go list pattern relative to the module root, e.g. "./abi".
	pkg string
	// stdlibOnly: nothing outside the standard library but the pattern's
	// own packages.
	stdlibOnly bool
	// forbid holds import-path prefixes (a module or a package, matched on
	// whole path elements) that must not be in the dependency closure.
	forbid []string
	// forbidStdlib holds standard-library packages (and their
	// subpackages) that no non-standard package of the closure imports.
	forbidStdlib []string
	// noCalls holds "importpath.Name" identifiers the rule's own non-test
	// files must not use, e.g. "time.Now".
	noCalls []string
	// why is printed with a violation.
	why string
}

const (
	wazero     = "github.com/tetratelabs/wazero"
	pebble     = "github.com/cockroachdb/pebble"
	natsServer = "github.com/nats-io/nats-server"
	natsClient = "github.com/nats-io/nats.go"
	natsio     = "github.com/wasmstream/wasmstream/natsio"
	engine     = "github.com/wasmstream/wasmstream/internal/engine"
)

var rules = []rule{
	{pkg: "./abi", stdlibOnly: true,
		why: "the ABI constants are shared by the host and every guest SDK"},
	{pkg: "./internal/modref", stdlibOnly: true,
		why: "the module reference is a leaf type of the config parser"},
	{pkg: "./internal/ttlspec", stdlibOnly: true,
		why: "the TTL settings are a leaf type of the config parser"},
	{pkg: "./internal/engine/config", forbid: []string{wazero, pebble, natsServer, natsClient},
		why: "a pipeline file is parsed and checked without the runtimes"},
	{pkg: "./internal/protocol", stdlibOnly: true, forbidStdlib: []string{"os", "net", "syscall", "io/fs"},
		noCalls: []string{"time.Now", "time.Since", "time.Until", "time.After", "time.AfterFunc", "time.NewTimer", "time.NewTicker", "time.Tick", "time.Sleep"},
		why:     "the checkpoint protocol core is a pure state machine: no I/O, no timers, the clock passed in"},
	{pkg: "./internal/exchange", stdlibOnly: true, forbidStdlib: []string{"os", "net", "syscall", "io/fs"},
		why: "the exchange wire format is a leaf shared by producers, consumers and tools; internal/exchange/exchangejs joins it to NATS"},
	{pkg: "./checkpoint", forbid: []string{natsio, natsServer, natsClient, wazero},
		why: "the snapshot layer imports no transport; internal/savepointstore joins it to NATS"},
	{pkg: "./internal/cluster/lease", forbid: []string{wazero, pebble, natsServer, engine},
		why: "the coordinator lease is a building block under the engine: a NATS client and nothing else"},
	{pkg: "./internal/cluster/assign", stdlibOnly: true, forbidStdlib: []string{"os", "net", "syscall", "io/fs"},
		noCalls: []string{"time.Now", "time.Since", "time.Until", "time.After", "time.AfterFunc", "time.NewTimer", "time.NewTicker", "time.Tick", "time.Sleep"},
		why:     "the assignment of key groups to workers is a pure computation of the coordinator"},
	{pkg: "./internal/cluster/ship", forbid: []string{wazero, natsServer, engine},
		why: "state shipping joins Pebble checkpoints to the Object Store and knows nothing of the engine"},
	{pkg: "./internal/cluster/member", forbid: []string{wazero, pebble, natsServer, engine},
		why: "membership is a building block under the engine: leases and heartbeats over a NATS client"},
	{pkg: "./internal/cluster/ctlrec", forbid: []string{wazero, pebble, natsServer, engine},
		why: "control records are a building block under the engine: fenced KV writes over a NATS client"},
	{pkg: "./internal/cluster/global", forbid: []string{wazero, natsServer, engine},
		why: "the cluster checkpoint's manifest joins shipped task checkpoints into one cut and knows nothing of the engine"},
	{pkg: "./internal/observe", forbid: []string{wazero, pebble, natsServer, natsClient, engine},
		why: "the metrics and health endpoint serves what it is handed: the engine's seams are the only way in"},
}

func TestLayering(t *testing.T) {
	for _, r := range rules {
		t.Run(strings.TrimPrefix(r.pkg, "./"), func(t *testing.T) {
			t.Parallel()
			checkRule(t, r)
		})
	}
}

// checkRule fails t with every violation of r.
func checkRule(t *testing.T, r rule) {
	t.Helper()
	g := listDeps(t, r.pkg)
	for _, v := range g.violations(r) {
		t.Errorf("%s must not depend on %s (%s): %s", r.pkg, v.forbidden, r.why, strings.Join(v.chain, " -> "))
	}
	for _, call := range r.noCalls {
		for _, root := range g.roots {
			noCallsTo(t, g.pkgs[root].dir, call)
		}
	}
}

// The checker must see a violation where there is one, or every rule
// above could pass by accident (a wrong pattern, a parse that finds no
// imports). natsio is the transport: it breaks each kind of rule.
func TestCheckerFindsViolations(t *testing.T) {
	g := listDeps(t, "./natsio")
	for _, tc := range []struct {
		name string
		r    rule
		want string            // the forbidden entry reported
		last func(string) bool // holds for the chain's last package
	}{
		{"forbid", rule{forbid: []string{natsClient}}, natsClient, func(p string) bool { return within(p, natsClient) }},
		{"stdlibOnly", rule{stdlibOnly: true}, "", func(p string) bool { return !g.pkgs[p].standard }},
		{"forbidStdlib", rule{forbidStdlib: []string{"net"}}, "net", func(p string) bool { return within(p, "net") }},
	} {
		vs := g.violations(tc.r)
		if len(vs) == 0 {
			t.Errorf("%s: no violation reported for ./natsio", tc.name)
			continue
		}
		v := vs[0]
		if tc.want != "" && v.forbidden != tc.want {
			t.Errorf("%s: reported %q, want %q", tc.name, v.forbidden, tc.want)
		}
		if len(v.chain) < 2 || v.chain[0] != natsio || !tc.last(v.chain[len(v.chain)-1]) {
			t.Errorf("%s: chain %q does not lead from %s to a forbidden package", tc.name, v.chain, natsio)
		}
	}
}
