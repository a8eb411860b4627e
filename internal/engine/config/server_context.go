package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// natsContext is what a pipeline uses of a NATS CLI context file (`nats context save`): the
// JSON of github.com/synadia-io/orbit.go/natscontext's Settings. That package reads a context
// only while connecting, and this parser may not import nats.go (internal/layering), so the
// file is read here; natsio's tests check that natscontext connects with the same file.
type natsContext struct {
	URL         string `json:"url"`
	User        string `json:"user"`
	Password    string `json:"password"`
	Creds       string `json:"creds"`
	NKey        string `json:"nkey"`
	Token       string `json:"token"`
	Cert        string `json:"cert"`
	Key         string `json:"key"`
	CA          string `json:"ca"`
	JSDomain    string `json:"jetstream_domain"`
	JSAPIPrefix string `json:"jetstream_api_prefix"`
	InboxPrefix string `json:"inbox_prefix"`
	// Settings a pipeline cannot honour; a context using one is refused rather than half used.
	NSC          string `json:"nsc"`
	SocksProxy   string `json:"socks_proxy"`
	UserJWT      string `json:"user_jwt"`
	TLSFirst     bool   `json:"tls_first"`
	WinCertStore string `json:"windows_cert_store"`
}

// contextDir is where the nats CLI keeps its contexts, as natscontext finds it:
// $XDG_CONFIG_HOME/nats/context, else ~/.config/nats/context.
func contextDir() (string, error) {
	if parent := os.Getenv("XDG_CONFIG_HOME"); parent != "" {
		return filepath.Join(parent, "nats", "context"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find the NATS contexts: %w; set XDG_CONFIG_HOME to the directory holding nats/context", err)
	}
	return filepath.Join(home, ".config", "nats", "context"), nil
}

// readContext reads the context called name and returns it with its file.
func readContext(name string) (natsContext, string, error) {
	if name == "" || strings.Contains(name, "..") || strings.ContainsRune(name, os.PathSeparator) || strings.Contains(name, "/") {
		return natsContext{}, "", fmt.Errorf("%q is not a context name; write a name that nats context ls lists", name)
	}
	dir, err := contextDir()
	if err != nil {
		return natsContext{}, "", err
	}
	file := filepath.Join(dir, name+".json")
	raw, reason := readRegular(file)
	if errors.Is(reason, fs.ErrNotExist) {
		return natsContext{}, file, fmt.Errorf("no NATS context %q in %s; create it with nats context save %s --server URL, or set XDG_CONFIG_HOME to the directory whose nats/context holds it", name, dir, name)
	}
	if reason != nil {
		return natsContext{}, file, fmt.Errorf("NATS context %q (%s): %w", name, file, reason)
	}
	var c natsContext
	if err := json.Unmarshal(raw, &c); err != nil {
		return natsContext{}, file, fmt.Errorf("NATS context %q (%s) is not a context file: %w; recreate it with nats context save", name, file, err)
	}
	if unsupported := c.unsupported(); unsupported != "" {
		return natsContext{}, file, fmt.Errorf("NATS context %q (%s) sets %s, which wasmstream does not support; use a context without it, or write the settings in the server block", name, file, unsupported)
	}
	return c, file, nil
}

func (c natsContext) unsupported() string {
	switch {
	case c.NSC != "":
		return "nsc (an nsc lookup)"
	case c.SocksProxy != "":
		return "socks_proxy"
	case c.UserJWT != "":
		return "user_jwt"
	case c.TLSFirst:
		return "tls_first"
	case c.WinCertStore != "":
		return "windows_cert_store"
	}
	return ""
}

// contextPath expands a path of a context as the nats CLI does (~, environment variables)
// and makes it absolute against the working directory, where the CLI would open it.
func contextPath(p string) string {
	if p == "" {
		return ""
	}
	p = os.ExpandEnv(p)
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}
