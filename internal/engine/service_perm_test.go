package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/engine/control"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// TestDataUserCannotStopAPipeline: on the embedded server only the
// control user reaches the run service; the data user's stop (and status,
// and discovery) is a permission violation, and the pipeline runs on.
func TestDataUserCannotStopAPipeline(t *testing.T) {
	cfg := testPipeline(t, testutil.GoGuest(t, paymentRiskPkg), t.TempDir(), testutil.FreePort(t), "")
	s := serve(t, cfg)
	defer s.finish(t)
	for _, subject := range []string{control.StopSubject(cfg.Name), control.StatusSubject(cfg.Name), "$SRV.INFO.wasmstream", "$SRV.PING"} {
		if err := publishDenied(cfg, subject); err != nil {
			t.Error(err)
		}
	}
	st, err := StatusOfRun(context.Background(), cfg, 10*time.Second)
	if err != nil || st.State != control.StateRunning {
		t.Fatalf("the control user's status after the data user's stop: %+v, %v; want running", st, err)
	}
}

// TestDocumentedPermissionsSufficeForTheService lists, asks the status of
// and stops the payment-risk pipeline as its user of
// docs/nats-permissions.md, with exactly the permissions listed there: not
// one permission violation may appear on the server.
func TestDocumentedPermissionsSufficeForTheService(t *testing.T) {
	url, log := documentedUserServer(t)
	cfg := remotePipeline(t, fmt.Sprintf("url = %q\nuser = \"payment-risk\"\npassword = \"change-me\"\ninbox_prefix = \"_INBOX_payment_risk\"", url))
	s := startServing(t, cfg)
	list, err := RunningPipelines(context.Background(), cfg, time.Second, 10*time.Second)
	if err != nil || len(list) != 1 || list[0].Pipeline != cfg.Name {
		t.Fatalf("pipelines as the pipeline's user: %+v, %v", list, err)
	}
	reply, err := StopRun(context.Background(), cfg, 2*time.Minute)
	if err != nil {
		t.Fatalf("stop as the pipeline's user: %v", err)
	}
	checkFinalCheckpoint(t, s, reply)
	if v := log.all(); len(v) > 0 {
		t.Fatalf("the documented permissions are not enough for the service:\n%s", strings.Join(v, "\n"))
	}
}
