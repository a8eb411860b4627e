package plugins

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
)

// badModules are the refused uploads: each kind of problem with the error
// it must give and a phrase of the fix its message must carry.
func badModules(t testing.TB) []struct {
	name string
	wasm []byte
	lim  Limits
	kind error
	hint string
} {
	good := fixture(t, "good.wasm")
	return []struct {
		name string
		wasm []byte
		lim  Limits
		kind error
		hint string
	}{
		{"empty", nil, Limits{}, ErrNotWasm, "the file is empty"},
		{"text", []byte("#!/bin/sh\necho hello\n"), Limits{}, ErrNotWasm, "GOOS=wasip1"},
		{"elf", []byte("\x7fELF\x02\x01\x01\x00rest"), Limits{}, ErrNotWasm, "not the WebAssembly magic"},
		{"truncated", good[:len(good)/2], Limits{}, ErrNotWasm, "rebuild it"},
		{"wrong ABI", fixture(t, "version2.wasm"), Limits{}, ErrABI, "rebuild it with an SDK for ABI v1"},
		{"missing exports", fixture(t, "noexports.wasm"), Limits{}, ErrExports, "ws_process"},
		{"unknown import", fixture(t, "badimport.wasm"), Limits{}, ErrImports, "wasmstream.state_scan"},
		{"memory over default", fixture(t, "bigmemory.wasm"), Limits{}, ErrMemory, "600 pages (37.5 MiB), over the limit of 512 pages"},
		{"memory over given", good, Limits{MemoryPages: 1}, ErrMemory, "raise the limit"},
		{"too large", good, Limits{MaxBytes: 100}, ErrTooLarge, "strip debug information"},
		{"start traps", fixture(t, "inittrap.wasm"), Limits{}, ErrStart, "_initialize"},
		{"WASI command module", fixture(t, "command.wasm"), Limits{}, ErrExports, "GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o op.wasm ."},
		{"emits in ws_init", fixture(t, "initemit.wasm"), Limits{}, ErrInit, "in emit (NO_RECORD)"},
		{"ws_init refuses the empty config", fixture(t, "needsconfig.wasm"), Limits{}, ErrInit, "--init-config FILE"},
	}
}

func TestValidateRefusesBadModules(t *testing.T) {
	for _, tc := range badModules(t) {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Validate(context.Background(), tc.wasm, tc.lim)
			if !errors.Is(err, tc.kind) {
				t.Fatalf("got %v, want %v", err, tc.kind)
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("%T is not a *ValidationError", err)
			}
			if !strings.Contains(err.Error(), tc.hint) {
				t.Fatalf("message %q lacks %q", err, tc.hint)
			}
			if strings.Contains(err.Error(), `operator ""`) {
				t.Fatalf("message %q carries the host's empty operator name", err)
			}
		})
	}
}

// The host's own sentinels stay reachable through the wrapper.
func TestValidateKeepsHostCause(t *testing.T) {
	_, err := Validate(context.Background(), fixture(t, "version2.wasm"), Limits{})
	if !errors.Is(err, host.ErrABIVersion) {
		t.Fatalf("got %v, want it to wrap host.ErrABIVersion too", err)
	}
}

func TestValidateInfo(t *testing.T) {
	wasm := fixture(t, "good.wasm")
	info, err := Validate(context.Background(), wasm, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if info.Hash != HashBytes(wasm) || info.Size != int64(len(wasm)) || info.ABIVersion != abi.Version {
		t.Fatalf("info %+v", info)
	}
	if want := []string{"record_next", "state_get"}; !slices.Equal(info.Imports, want) {
		t.Fatalf("imports %v, want %v", info.Imports, want)
	}
	if info.MemoryMinPages != 2 || info.MemoryMaxPages == nil || *info.MemoryMaxPages != 16 {
		t.Fatalf("memory min %d max %v, want 2 and 16", info.MemoryMinPages, info.MemoryMaxPages)
	}
}

// A larger limit admits the module that the default refuses; one with no
// declared maximum reports none.
func TestValidateMemoryLimitIsConfigurable(t *testing.T) {
	info, err := Validate(context.Background(), fixture(t, "bigmemory.wasm"), Limits{MemoryPages: 600})
	if err != nil {
		t.Fatal(err)
	}
	if info.MemoryMinPages != 600 || info.MemoryMaxPages != nil {
		t.Fatalf("memory min %d max %v, want 600 and none", info.MemoryMinPages, info.MemoryMaxPages)
	}
}

// The size limit counts bytes: a module exactly at the limit passes.
func TestValidateSizeLimitBoundary(t *testing.T) {
	wasm := fixture(t, "good.wasm")
	if _, err := Validate(context.Background(), wasm, Limits{MaxBytes: int64(len(wasm))}); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	if _, err := Validate(context.Background(), wasm, Limits{MaxBytes: int64(len(wasm)) - 1}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("one byte over: %v", err)
	}
}

// The real Go example operator validates, with the imports the Go SDK uses.
func TestValidateGoGuest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the Go example operator")
	}
	wasm := goGuest(t)
	info, err := Validate(context.Background(), wasm, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(info.Imports, abi.FuncRecordNext) || info.MemoryMinPages == 0 {
		t.Fatalf("info %+v", info)
	}
}

func TestReadModuleFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "op.wasm")
	wasm := fixture(t, "good.wasm")
	if err := os.WriteFile(path, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ReadModuleFile(path, Limits{})
	if err != nil || !bytes.Equal(b, wasm) {
		t.Fatalf("read %d bytes, %v", len(b), err)
	}
	if _, err := ReadModuleFile(path, Limits{MaxBytes: 10}); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), path) {
		t.Fatalf("over the limit: %v", err)
	}
	if _, err := ReadModuleFile(filepath.Join(dir, "missing.wasm"), Limits{}); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.wasm") {
		t.Fatalf("missing: %v", err)
	}
	if _, err := ReadModuleFile(dir, Limits{}); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("directory: %v", err)
	}
}

// Validate decodes untrusted bytes: whatever they are, it returns an Info
// for exactly those bytes or a ValidationError, and never panics.
func FuzzValidate(f *testing.F) {
	good := fixture(f, "good.wasm")
	for _, seed := range [][]byte{good, good[:9], good[:len(good)-3], fixture(f, "version2.wasm"),
		fixture(f, "noexports.wasm"), fixture(f, "badimport.wasm"), []byte("\x00asm\x01\x00\x00\x00"), nil} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, wasm []byte) {
		info, err := Validate(context.Background(), wasm, Limits{MaxBytes: 1 << 16})
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("%T %v is not a *ValidationError", err, err)
			}
			return
		}
		if info.Hash != HashBytes(wasm) || info.ABIVersion != abi.Version {
			t.Fatalf("info %+v for %d bytes", info, len(wasm))
		}
	})
}

// The committed .wasm fixtures must be what wat2wasm makes of the .wat
// sources. CI installs wabt; elsewhere the check needs it too.
func TestFixturesMatchSources(t *testing.T) {
	if _, err := exec.LookPath("wat2wasm"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("wat2wasm not found: CI must install wabt (scripts/install-toolchains.sh)")
		}
		t.Skip("wat2wasm not installed (apt-get install wabt); fixtures not re-checked")
	}
	sources, _ := filepath.Glob("testdata/*.wat")
	for _, src := range sources {
		out := filepath.Join(t.TempDir(), "x.wasm")
		if b, err := exec.Command("wat2wasm", src, "-o", out).CombinedOutput(); err != nil {
			t.Fatalf("wat2wasm %s: %v\n%s", src, err, b)
		}
		want, _ := os.ReadFile(out)
		got, _ := os.ReadFile(strings.TrimSuffix(src, ".wat") + ".wasm")
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./plugins/", src)
		}
	}
}
