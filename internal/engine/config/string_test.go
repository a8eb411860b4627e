package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validFiles are the files of testdata/valid, without .hcl, whose printed form is checked.
var validFiles = []string{"full", "minimal", "functions", "unaligned", "cluster", "graph"}

// TestStringGolden shows the printed effective config of each valid file; $DIR stands for the
// absolute test data directory.
func TestStringGolden(t *testing.T) {
	t.Setenv("WASMSTREAM_TEST_PASSWORD", "s3cret")
	dir, err := filepath.Abs("testdata/valid")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range validFiles {
		t.Run(name, func(t *testing.T) {
			p, _, err := Load(filepath.Join("testdata/valid", name+".hcl"))
			if err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(p.String(), dir, "$DIR")
			golden := filepath.Join("testdata/effective", name+".golden")
			if *rewrite {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestStringGolden -rewrite to create it)", err)
			}
			if got != string(want) {
				t.Errorf("String() differs from %s\n--- got\n%s--- want\n%s", golden, got, want)
			}
		})
	}
}

// TestStringRoundTrip reads the printed config back: apart from redacted secrets, the text and
// the positions, it must be the same pipeline, so a recorded effective config can be rerun.
func TestStringRoundTrip(t *testing.T) {
	t.Setenv("WASMSTREAM_TEST_PASSWORD", "s3cret")
	for _, name := range validFiles {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata/valid", name+".hcl")
			p, _, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			again, diags, err := Parse([]byte(p.String()), path)
			if err != nil || len(diags) > 0 {
				t.Fatalf("printed config does not read back cleanly: %v\n%v", err, diags)
			}
			if p.Server.Password != "" {
				p.Server.Password = redacted
			}
			again.Text = p.Text
			zeroRanges(again)
			zeroRanges(p)
			comparePipelines(t, again, p)
		})
	}
}

func TestStringRedactsSecrets(t *testing.T) {
	p := &Pipeline{Name: "p", Server: Server{
		URL:      "nats://alice:url-secret@host:4222,nats://bob@other:4222",
		User:     "alice",
		Password: "password-secret",
		Token:    "token-secret",
	}}
	out := p.String()
	for _, secret := range []string{"url-secret", "password-secret", "token-secret"} {
		if strings.Contains(out, secret) {
			t.Errorf("printed config leaks %q:\n%s", secret, out)
		}
	}
	for _, kept := range []string{"alice", "bob@other", `password = "<redacted>"`, `token    = "<redacted>"`} {
		if !strings.Contains(out, kept) {
			t.Errorf("printed config lacks %q:\n%s", kept, out)
		}
	}
}

// TestStringBinaryConfig: bytes HCL cannot hold in a string are summarised, never printed raw.
func TestStringBinaryConfig(t *testing.T) {
	p := &Pipeline{Name: "p", Operators: []Operator{{Name: "o", Config: []byte{0xff, 0x00, 0xfe}}}}
	out := p.String()
	want := "# config: 3 bytes, not UTF-8, sha256 "
	if !strings.Contains(out, want) || strings.Contains(out, "config =") {
		t.Errorf("binary config printed as\n%s", out)
	}
}

// zeroRanges forgets positions, which differ between a file and its printed form.
func zeroRanges(p *Pipeline) {
	clearRanges(p)
	p.Checkpoint.Range.Start.Line = 0
	p.Cluster.Range.Start.Line = 0
	for i := range p.Streams {
		p.Streams[i].Range.Start.Line = 0
	}
	for i := range p.Sources {
		p.Sources[i].Range.Start.Line = 0
	}
	for i := range p.Operators {
		p.Operators[i].Range.Start.Line = 0
		p.Operators[i].ModuleRange.Start.Line = 0
	}
	for i := range p.Sinks {
		p.Sinks[i].Range.Start.Line = 0
	}
}
