package engine

import (
	"testing"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// countV2Module builds the sum2 guest declaring its count states v2 with
// no migration: a module whose stored counts (v1, 8 bytes) it cannot read.
func countV2Module(t *testing.T) string {
	t.Helper()
	return testutil.GoGuestWithFlags(t, sum2Pkg, "-X main.countVersion=2")
}

// A module that declares a state version other than the checkpoint's,
// without a migration, is refused whatever the flags: neither
// --allow-operator-change nor an unchanged state_version may restore old
// values under a new version (the next checkpoint would label them v2).
// The error names the states, the versions and the fix; nothing changes.
// (Once the flags were checked first and restored checkpoint 2.)
func testRecoveryRefusesUndeclaredMigrationDespiteFlags(t *testing.T, fx *recoveryFixture) {
	module := countV2Module(t)
	cases := []struct {
		name         string
		stateVersion string
		opts         Options
	}{
		{"allow-operator-change", "", Options{Recovery: RecoveryOptions{AllowOperatorChange: true}}},
		{"same state_version", fx.base.stateVersion, Options{}},
		{"both", fx.base.stateVersion, Options{Recovery: RecoveryOptions{AllowOperatorChange: true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := fx.clone(t)
			seedCompilationCache(t, s.dataDir, module)
			s.module, s.stateVersion = module, c.stateVersion
			cfg := s.load(t)
			before := treeDigest(t, liveDirs(cfg)...)
			err := openRefused(t, cfg, c.opts)
			wantRecoveryError(t, err, 2, `operator "sum"`, `"count-0" v1 → v2`, `"count-1" v1 → v2`,
				"without declaring a migration", "StateOptions.Migrate", "keep its old version",
				"neither --allow-operator-change nor an unchanged state_version overrides")
			sameDigest(t, "after the refused run", before, treeDigest(t, liveDirs(cfg)...))
			if ids, err := checkpoint.List(CheckpointRoot(cfg)); err != nil || len(ids) != 2 {
				t.Errorf("checkpoints %v, %v after the refused run; want the fixture's two", ids, err)
			}
		})
	}
}
