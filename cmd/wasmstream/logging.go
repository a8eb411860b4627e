package main

import (
	"os"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// newLogger builds the process logger: flags win over the pipeline's log
// block, which wins over the defaults (text, info).
func newLogger(g *globalFlags, cfg *config.Pipeline) hclog.Logger {
	format, level := "text", "info"
	if cfg != nil {
		format, level = orDefault(cfg.Log.Format, format), orDefault(cfg.Log.Level, level)
	}
	format, level = orDefault(g.logFormat, format), orDefault(g.logLevel, level)
	return hclog.New(&hclog.LoggerOptions{
		Name:       "wasmstream",
		Level:      hclog.LevelFromString(level),
		JSONFormat: format == "json",
		Output:     os.Stderr,
	})
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
