package plugins

import (
	"fmt"
	"io"
	"os"
)

// ReadModuleFile reads a module file for Validate or Push, refusing one over
// lim.MaxBytes before reading it all. Errors name the file.
func ReadModuleFile(path string, lim Limits) ([]byte, error) {
	lim = lim.withDefaults()
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read module: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("module %s is a directory; give the .wasm file", path)
	}
	if err := checkSize(st.Size(), lim); err != nil && st.Size() > 0 {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// The limit also bounds files that grow, and ones (pipes) whose Stat
	// says nothing about their size.
	b, err := io.ReadAll(io.LimitReader(f, lim.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := checkSize(int64(len(b)), lim); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
