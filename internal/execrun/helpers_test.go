package execrun_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/execrun"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

const paymentRiskPkg = "./examples/payment-risk/operator"

// example is a file of examples/payment-risk.
func example(t *testing.T, name string) string {
	t.Helper()
	return filepath.Join(testutil.ModuleRoot(t), "examples", "payment-risk", name)
}

// writeLines writes lines into a new file and returns its path.
func writeLines(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "records.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// riskOptions runs the payment-risk operator of its pipeline file on input.
func riskOptions(t *testing.T, input string) execrun.Options {
	t.Helper()
	return execrun.Options{Module: testutil.GoGuest(t, paymentRiskPkg), Input: input,
		Pipeline: example(t, "pipeline.hcl"), Operator: "risk"}
}

func run(t *testing.T, o execrun.Options) *execrun.Result {
	t.Helper()
	res, err := execrun.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// stateOf finds the value of state name (a map entry when mapKey is set)
// of key.
func stateOf(res *execrun.Result, key, name, mapKey string) ([]byte, bool) {
	for _, s := range res.State {
		if string(s.Key) == key && s.State == name && string(s.MapKey) == mapKey {
			return s.Value, true
		}
	}
	return nil, false
}
