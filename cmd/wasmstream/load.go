package main

import (
	"fmt"
	"io"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// loadConfig loads a pipeline file, printing its warnings to w; errors come
// back as one error listing every file:line:column problem.
func loadConfig(path string, w io.Writer) (*config.Pipeline, error) {
	p, diags, err := config.Load(path)
	for _, d := range diags {
		if d.Severity == config.SeverityWarning {
			fmt.Fprintln(w, d.String())
		}
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}
