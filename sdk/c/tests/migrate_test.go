package tests

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
)

func migrateWasm(tb testing.TB) []byte { return buildGuest(tb, "testdata/migrate.c") }

func TestAMigrationSetsTheMigratesFlag(t *testing.T) {
	g := newGuest(t, migrateWasm(t), host.InstanceConfig{}).mustStart()
	want := []host.StateDeclaration{
		{Name: "total", Version: 2, Flags: abi.DeclareMigrates},
		{Name: "limits", Version: 3, Flags: abi.DeclareMigrates},
		{Name: "plain", Version: 2},
	}
	if got := g.inst.Declarations(); !reflect.DeepEqual(got, want) {
		t.Fatalf("declarations:\n got %+v\nwant %+v", got, want)
	}
}

// TestMigrationsConvertAndDelete calls ws_migrate through the host, as an
// upgrade does, value after value on one instance.
func TestMigrationsConvertAndDelete(t *testing.T) {
	g := newGuest(t, migrateWasm(t), host.InstanceConfig{}).mustStart()
	for _, c := range []struct {
		name, old string
		from      int32
		want      string
		keep      bool
	}{
		{"total", "42", 1, `{"total":42}`, true},
		{"total", "-7", 1, `{"total":-7}`, true},
		{"total", "0", 1, "", false},
		{"limits\x00acct-1", "9", 2, "limits\x00acct-1", true},
		{"total", "123456", 1, `{"total":123456}`, true},
	} {
		out, keep, err := g.inst.Migrate(context.Background(), []byte(c.name), c.from, []byte(c.old))
		if err != nil || keep != c.keep || string(out) != c.want {
			t.Fatalf("migrate %q from %d: got %q keep=%v err=%v, want %q keep=%v", c.name, c.from, out, keep, err, c.want, c.keep)
		}
	}
}

// TestAFailedMigrationNamesTheState: the host reports ErrTrap with
// GUEST_INTERNAL and the guest's line naming the state, and discards the
// instance.
func TestAFailedMigrationNamesTheState(t *testing.T) {
	mod := compile(t, newRuntime(t), migrateWasm(t))
	for _, c := range []struct {
		name, old string
		from      int32
		detail    []string
	}{
		{"total", "ten", 1, []string{`migration of state "total" from version 1 failed`, "the stored total ten is not a decimal integer"}},
		{"total", "5", 4, []string{`state "total" from version 4 failed`, "no migration from version 4"}},
		{"total", "silent", 1, []string{`state "total"`, "without calling ws_migrated"}},
		{"plain", "x", 1, []string{`no migration declared for state "plain"`}},
		{"other\x00k", "x", 1, []string{`no migration declared for state "other" (entry "k")`}},
	} {
		t.Run(c.old, func(t *testing.T) {
			g := guestOf(t, mod, host.InstanceConfig{}).mustStart()
			_, _, err := g.inst.Migrate(context.Background(), []byte(c.name), c.from, []byte(c.old))
			var ge *host.GuestError
			if !errors.As(err, &ge) || !errors.Is(err, host.ErrTrap) || ge.Code != abi.ErrGuestInternal {
				t.Fatalf("want ErrTrap with GUEST_INTERNAL, got %v", err)
			}
			if !errorLogged([]logLine{{Level: "error", Message: ge.Detail}}, c.detail...) {
				t.Fatalf("detail %q lacks %q", ge.Detail, c.detail)
			}
			if _, _, err := g.inst.Migrate(context.Background(), []byte("total"), 1, []byte("1")); !errors.Is(err, host.ErrInstanceClosed) {
				t.Fatalf("after a failed migration: %v, want ErrInstanceClosed", err)
			}
		})
	}
}
