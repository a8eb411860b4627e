package wasmstream

import (
	"errors"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/abi"
)

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// Every code a host function can return has its sentinel, and the
// sentinel's text names the registry entry.
func TestCodeErrorCoversRegistry(t *testing.T) {
	for code := abi.Code(-1); code >= abi.ErrReentrant; code-- {
		err := codeError(code)
		if errors.Is(err, ErrUnknownCode) {
			t.Errorf("code %v has no sentinel", code)
		}
		if !strings.Contains(err.Error(), code.String()) {
			t.Errorf("sentinel of %v is %q, which does not name the code", code, err)
		}
	}
}

func TestCodeErrorUnknown(t *testing.T) {
	err := codeError(-42)
	if !errors.Is(err, ErrUnknownCode) || !strings.Contains(err.Error(), "CODE(-42)") {
		t.Fatalf("codeError(-42) = %v", err)
	}
}

func TestOpError(t *testing.T) {
	err := opError("state put", "total", ErrTooLarge)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatal("OpError does not unwrap to its sentinel")
	}
	want := `wasmstream: state put "total": ` + ErrTooLarge.Error()
	if err.Error() != want {
		t.Fatalf("Error() = %q, want %q", err, want)
	}
	if wrapOp("x", "y", nil) != nil {
		t.Fatal("wrapOp(nil) is not nil")
	}
}
