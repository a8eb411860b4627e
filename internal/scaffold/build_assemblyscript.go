package scaffold

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// The AssemblyScript compiler 0.28 needs Node.js 20 or newer.
const (
	minNodeMajor = 20
	nodeInstall  = "Node.js from https://nodejs.org, or apt-get install -y nodejs npm where that gives 20 or newer (Debian 12 gives 18)"
)

// buildAssemblyScript installs the locked compiler when node_modules lacks
// it, then compiles assembly/index.ts with the project's asconfig.json
// (which takes the SDK's settings).
func (b *builder) buildAssemblyScript(ctx context.Context) error {
	if err := checkNode(); err != nil {
		return err
	}
	entry := filepath.Join("assembly", "index.ts")
	if !exists(filepath.Join(b.dir, entry)) {
		return fmt.Errorf("%w in %s: no %s, the entry file of an AssemblyScript operator", ErrNoProject, b.dir, entry)
	}
	asc := filepath.Join("node_modules", ".bin", "asc")
	if !exists(filepath.Join(b.dir, asc)) {
		install := []string{"ci", "--no-audit", "--no-fund"}
		if !exists(filepath.Join(b.dir, "package-lock.json")) {
			install[0] = "install"
		}
		if err := b.run(ctx, nil, "npm", install...); err != nil {
			return err
		}
	}
	return b.run(ctx, nil, asc, entry, "-o", b.outArg)
}

// checkNode finds node and npm, and a node new enough for the compiler.
func checkNode() error {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			return missing(AssemblyScript, fmt.Sprintf("%s (Node.js %d or newer)", tool, minNodeMajor), nodeInstall)
		}
	}
	out, err := exec.Command("node", "-p", "process.versions.node").Output()
	if err != nil {
		return missing(AssemblyScript, fmt.Sprintf("a working node (Node.js %d or newer): %v", minNodeMajor, err), nodeInstall)
	}
	version := strings.TrimSpace(string(out))
	major, _ := strconv.Atoi(strings.Split(version, ".")[0])
	if major < minNodeMajor {
		return missing(AssemblyScript, fmt.Sprintf("Node.js %d or newer, not %s", minNodeMajor, version), nodeInstall)
	}
	return nil
}
