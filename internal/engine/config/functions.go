package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// evalContext is what expressions in the config file can use: functions only, no variables.
// Everything the functions read is read once at load time, so the effective config (String)
// records what the guests will see.
func evalContext(dir string) *hcl.EvalContext {
	return &hcl.EvalContext{Functions: map[string]function.Function{
		"jsonencode": stdlib.JSONEncodeFunc,
		"file":       fileFunc(dir),
		"env":        envFunc,
	}}
}

// fileFunc returns file(path): the UTF-8 text of a file, relative to the config file's directory.
func fileFunc(dir string) function.Function {
	return function.New(&function.Spec{
		Description: "Returns the UTF-8 text of a file; a relative path starts at the config file's directory.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			name := args[0].AsString()
			b, err := readFile(dir, name)
			if err != nil {
				return cty.NilVal, err
			}
			if !utf8.Valid(b) {
				return cty.NilVal, fmt.Errorf("%q is not UTF-8 text; pass binary data to an operator with config_file", name)
			}
			return cty.StringVal(string(b)), nil
		},
	})
}

// envFunc is env(name): the value of an environment variable, so that secrets such as a server
// password need not be written in the file. An unset variable is an error rather than "", which
// would silently change the pipeline's behaviour.
var envFunc = function.New(&function.Spec{
	Description: "Returns the value of an environment variable; fails when it is not set.",
	Params:      []function.Parameter{{Name: "name", Type: cty.String}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		name := args[0].AsString()
		v, ok := os.LookupEnv(name)
		if !ok {
			return cty.NilVal, fmt.Errorf("environment variable %q is not set; set it or write the value in the file", name)
		}
		if !utf8.ValidString(v) {
			return cty.NilVal, fmt.Errorf("environment variable %q is not UTF-8 text", name)
		}
		return cty.StringVal(v), nil
	},
})

// resolve makes a path from the config file absolute against the file's directory.
func resolve(dir, name string) string {
	if filepath.IsAbs(name) {
		return filepath.Clean(name)
	}
	return filepath.Join(dir, name)
}

// readFile reads a regular file of at most maxFileBytes named relative to dir. Devices, pipes and
// directories are refused so that a config cannot hang or exhaust the loader. The error wraps
// ErrRead and the OS error, and names the file as written and as resolved.
func readFile(dir, name string) ([]byte, error) {
	path := resolve(dir, name)
	b, reason := readRegular(path)
	if reason != nil {
		return nil, fmt.Errorf("%w %q (%s): %w", ErrRead, name, path, reason)
	}
	return b, nil
}

// readRegular returns why path could not be read without repeating the path: the OS error
// unwrapped from its *fs.PathError, or a limit.
func readRegular(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, osCause(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, osCause(err)
	}
	if !info.Mode().IsRegular() {
		return nil, errNotRegular
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, osCause(err)
	}
	if len(b) > maxFileBytes {
		return nil, errTooLarge
	}
	return b, nil
}

var (
	errNotRegular = errors.New("not a regular file")
	errTooLarge   = fmt.Errorf("larger than %d MiB", maxFileBytes>>20)
)

func osCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
