package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

func TestFileFunc(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ok.json", []byte(`{"a":1}`))
	write("binary", []byte{0xff, 0xfe})
	big, err := os.Create(filepath.Join(dir, "big"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(maxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	big.Close()
	for _, tc := range []struct {
		arg     string
		want    string
		wantErr string
	}{
		{arg: "ok.json", want: `{"a":1}`},
		{arg: filepath.Join(dir, "ok.json"), want: `{"a":1}`},
		{arg: "missing", wantErr: "no such file or directory"},
		{arg: ".", wantErr: "not a regular file"},
		{arg: "binary", wantErr: "not UTF-8 text; pass binary data to an operator with config_file"},
		{arg: "big", wantErr: "larger than 16 MiB"},
	} {
		got, err := fileFunc(dir).Call([]cty.Value{cty.StringVal(tc.arg)})
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("file(%q) error = %v, want one containing %q", tc.arg, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || got.AsString() != tc.want):
			t.Errorf("file(%q) = %#v, %v; want %q", tc.arg, got, err, tc.want)
		}
	}
}

func TestReadFileErrorsWrapCause(t *testing.T) {
	_, err := readFile(t.TempDir(), "missing")
	if !errors.Is(err, ErrRead) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%v does not wrap ErrRead and fs.ErrNotExist", err)
	}
}

func TestEnvFunc(t *testing.T) {
	t.Setenv("WASMSTREAM_TEST_SET", "value")
	t.Setenv("WASMSTREAM_TEST_EMPTY", "")
	for name, want := range map[string]string{"WASMSTREAM_TEST_SET": "value", "WASMSTREAM_TEST_EMPTY": ""} {
		got, err := envFunc.Call([]cty.Value{cty.StringVal(name)})
		if err != nil || got.AsString() != want {
			t.Errorf("env(%q) = %#v, %v; want %q", name, got, err, want)
		}
	}
	_, err := envFunc.Call([]cty.Value{cty.StringVal("WASMSTREAM_TEST_NEVER_SET")})
	if err == nil || !strings.Contains(err.Error(), `"WASMSTREAM_TEST_NEVER_SET" is not set`) {
		t.Errorf("env of an unset variable: %v", err)
	}
}

func TestEvalContextFunctions(t *testing.T) {
	ctx := evalContext(t.TempDir())
	for _, name := range []string{"jsonencode", "file", "env"} {
		if _, ok := ctx.Functions[name]; !ok {
			t.Errorf("function %s missing", name)
		}
	}
	if ctx.Variables != nil {
		t.Error("variables must not be available: the config reads nothing but its functions")
	}
}

func TestResolve(t *testing.T) {
	for _, tc := range []struct{ dir, name, want string }{
		{"/cfg", "op.wasm", "/cfg/op.wasm"},
		{"/cfg", "../ops/op.wasm", "/ops/op.wasm"},
		{"/cfg", "/abs/op.wasm", "/abs/op.wasm"},
		{"/cfg", "./data/", "/cfg/data"},
	} {
		if got := resolve(tc.dir, tc.name); got != tc.want {
			t.Errorf("resolve(%q, %q) = %q, want %q", tc.dir, tc.name, got, tc.want)
		}
	}
}
