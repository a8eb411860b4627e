package engine

import (
	"context"
	"testing"

	"github.com/nats-io/nats.go/micro"

	"github.com/wasmstream/wasmstream/natsio"
)

// micro refuses a service whose version is not semver: every version a
// build can carry must map to one it takes.
func TestServiceVersion(t *testing.T) {
	c, err := natsio.Connect(context.Background(), natsio.ServerOptions{StoreDir: t.TempDir(), EmbeddedPort: natsio.RandomPort})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for in, want := range map[string]string{
		"dev": "0.0.0", "v1.4.2": "1.4.2", "1.4.2-rc.1": "1.4.2-rc.1", "0.3.0+build.7": "0.3.0+build.7",
		"a1b2c3d-dirty": "0.0.0", "": "0.0.0", "v1.2": "0.0.0", "01.2.3": "0.0.0", "1.2.3-01": "0.0.0",
	} {
		got := serviceVersion(in)
		if got != want {
			t.Errorf("serviceVersion(%q) = %q, want %q", in, got, want)
		}
		svc, err := micro.AddService(c.NC, micro.Config{Name: "wasmstream", Version: got})
		if err != nil {
			t.Errorf("micro refuses the version %q of %q: %v", got, in, err)
			continue
		}
		_ = svc.Stop()
	}
}
