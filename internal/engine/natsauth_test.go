package engine

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/engine/auth"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// deniedWait bounds a JetStream call the server drops for lack of
// permission: the client only sees its request time out.
const deniedWait = 2 * time.Second

// TestEmbeddedServerLetsInOnlyTheDataDirsUsers is the attack of a local
// user who has no access to the data dir: with the pipeline running on
// its embedded server, a client without the data dir's keys cannot
// connect at all, and a client holding only data.nk can publish into the
// source and read the outputs but can neither reach the control plane nor
// write the module registry or change a stream.
func TestEmbeddedServerLetsInOnlyTheDataDirsUsers(t *testing.T) {
	skipInRacePass(t)
	cfg := testPipeline(t, testutil.GoGuest(t, paymentRiskPkg), t.TempDir(), testutil.FreePort(t), "")
	s := serve(t, cfg)
	defer s.finish(t)
	url := "nats://127.0.0.1:" + strconv.Itoa(cfg.Server.EmbeddedPort)

	if nc, err := nats.Connect(url); err == nil || !strings.Contains(err.Error(), "Authorization Violation") {
		if nc != nil {
			nc.Close()
		}
		t.Fatalf("a client without credentials: err = %v, want an authorization violation", err)
	}
	checkPrivateSeeds(t, cfg.DataDir)

	data, err := ConnectClient(context.Background(), cfg, hclog.NewNullLogger(), AsData)
	if err != nil {
		t.Fatalf("the data user: %v", err)
	}
	defer data.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := data.JS.Publish(ctx, "payments.in", []byte(event("a", "e1", 100))); err != nil {
		t.Fatalf("the data user publishing into the source: %v", err)
	}
	s.waitOutputs(t, 1)
	if got := readSubjectAs(t, cfg, "risk.totals", AsData); len(got) != 1 {
		t.Fatalf("the data user read %d outputs, want 1", len(got))
	}
	if err := subscribeDenied(cfg, "_INBOX.>"); err != nil {
		t.Error(err)
	}
	for _, subject := range []string{UpgradeSubject(cfg.Name), ControlSubject(cfg.Name), "risk.totals"} {
		if err := publishDenied(cfg, subject); err != nil {
			t.Error(err)
		}
	}
	denied := map[string]func(context.Context) error{
		"create a key-value bucket": func(ctx context.Context) error {
			_, err := data.JS.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "evil"})
			return err
		},
		"create an object store": func(ctx context.Context) error {
			_, err := data.JS.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: "evil"})
			return err
		},
		"delete the source stream": func(ctx context.Context) error { return data.JS.DeleteStream(ctx, "PAYMENTS") },
		"purge the output stream": func(ctx context.Context) error {
			st, err := data.JS.Stream(ctx, "RISK")
			if err != nil {
				return err
			}
			return st.Purge(ctx)
		},
	}
	for what, call := range denied {
		ctx, cancel := context.WithTimeout(context.Background(), deniedWait)
		if err := call(ctx); err == nil {
			t.Errorf("the data user could %s", what)
		}
		cancel()
	}
	if _, err := TriggerCheckpoint(context.Background(), cfg, hclog.NewNullLogger(), time.Minute); err != nil {
		t.Fatalf("the control user's trigger: %v", err)
	}
}

// publishDenied publishes to subject as cfg's data user, on a connection
// of its own (a connection keeps its last error), and expects the server
// to refuse it.
func publishDenied(cfg *config.Pipeline, subject string) error {
	c, err := ConnectClient(context.Background(), cfg, hclog.NewNullLogger(), AsData)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.NC.Publish(subject, []byte("{}")); err != nil {
		return err
	}
	if err := c.NC.Flush(); err != nil {
		return err
	}
	err = c.NC.LastError()
	if err == nil || !errors.Is(err, nats.ErrPermissionViolation) && !strings.Contains(err.Error(), "Permissions Violation") {
		return errors.New("the data user could publish to " + subject)
	}
	return nil
}

// subscribeDenied subscribes to subject as cfg's data user and expects
// the server to refuse it.
func subscribeDenied(cfg *config.Pipeline, subject string) error {
	c, err := ConnectClient(context.Background(), cfg, hclog.NewNullLogger(), AsData)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.NC.SubscribeSync(subject); err != nil {
		return err
	}
	if err := c.NC.Flush(); err != nil {
		return err
	}
	if err := c.NC.LastError(); err == nil || !strings.Contains(err.Error(), "Permissions Violation") {
		return errors.New("the data user could subscribe to " + subject)
	}
	return nil
}

func checkPrivateSeeds(t *testing.T, dataDir string) {
	t.Helper()
	for _, r := range auth.Roles {
		fi, err := os.Stat(auth.SeedFile(dataDir, r))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %04o, want 0600", auth.SeedFile(dataDir, r), fi.Mode().Perm())
		}
	}
}

// TestDataUserCannotConsumeAnAcknowledgedStream: on a workqueue stream a
// consumer removes what it acknowledges and its filter can block the
// pipeline's own consumer, so the data user may read limits streams only.
func TestDataUserCannotConsumeAnAcknowledgedStream(t *testing.T) {
	cfg := testPipeline(t, testutil.GoGuest(t, paymentRiskPkg), t.TempDir(), testutil.FreePort(t), "")
	cfg.Streams = append(cfg.Streams, config.Stream{Name: "JOBS", Subjects: []string{"jobs.>"}, Retention: "workqueue", Storage: "file"})
	owner, err := ConnectClient(context.Background(), cfg, hclog.NewNullLogger(), AsControl)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	data, err := ConnectClient(context.Background(), cfg, hclog.NewNullLogger(), AsData)
	if err != nil {
		t.Fatal(err)
	}
	defer data.Close()
	consume := func(c *natsio.Conn, stream string) error {
		ctx, cancel := context.WithTimeout(context.Background(), deniedWait)
		defer cancel()
		_, err := c.JS.CreateConsumer(ctx, stream, jetstream.ConsumerConfig{AckPolicy: jetstream.AckExplicitPolicy, InactiveThreshold: time.Minute})
		return err
	}
	if err := consume(data, "RISK"); err != nil {
		t.Fatalf("the data user reading a limits stream: %v", err)
	}
	if err := consume(data, "JOBS"); err == nil {
		t.Fatal("the data user created a consumer on a workqueue stream")
	}
	if err := consume(owner, "JOBS"); err != nil {
		t.Fatalf("the control user creating a consumer on a workqueue stream: %v", err)
	}
}
