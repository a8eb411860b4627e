//go:build !wasip1

package wasmstream

import (
	"strings"
	"testing"
)

func TestRegister(t *testing.T) {
	defer func(saved Operator) { registered = saved }(registered)
	registered = nil

	mustPanic(t, "Register(nil)", "nil", func() { Register(nil) })
	Register(funcOperator{})
	if registered == nil {
		t.Fatal("Register did not register")
	}
	mustPanic(t, "second Register", "twice", func() { Register(funcOperator{}) })
}

func mustPanic(t *testing.T, what, want string, f func()) {
	t.Helper()
	defer func() {
		p := recover()
		if s, _ := p.(string); !strings.Contains(s, want) {
			t.Errorf("%s: panic %v, want one mentioning %q", what, p, want)
		}
	}()
	f()
}
