package natsio

import (
	"errors"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/clustertest"
)

// TestEnsureStreamReplicas: on a three-node cluster a declared R3 stream
// is created with three replicas, and an existing R1 stream is refused
// for an R3 declaration with the command that fixes it.
func TestEnsureStreamReplicas(t *testing.T) {
	cluster := clustertest.Start(t, 3)
	cluster.WaitReady(t)
	c := external(t, cluster.URLs())
	info, err := c.EnsureStream(testCtx(t), StreamSpec{Name: "R3", Subjects: []string{"r3.>"}, Replicas: 3})
	if err != nil {
		t.Fatal(err)
	}
	if info.Config.Replicas != 3 || info.Cluster == nil || len(info.Cluster.Replicas) != 2 {
		t.Fatalf("replicas %d, cluster %+v: want an R3 stream with a leader and two followers", info.Config.Replicas, info.Cluster)
	}
	if _, err := c.EnsureStream(testCtx(t), StreamSpec{Name: "R1", Subjects: []string{"r1.>"}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.EnsureStream(testCtx(t), StreamSpec{Name: "R1", Subjects: []string{"r1.>"}, Replicas: 3})
	if !errors.Is(err, ErrStreamConflict) || !strings.Contains(err.Error(), "--replicas 3") {
		t.Fatalf("err = %v, want ErrStreamConflict with the nats stream edit fix", err)
	}
}

func TestStreamSpecReplicasValidated(t *testing.T) {
	for _, n := range []int{-1, MaxReplicas + 1} {
		err := StreamSpec{Name: "S", Subjects: []string{"s"}, Replicas: n}.Validate()
		if !errors.Is(err, ErrInvalidStreamSpec) {
			t.Errorf("replicas %d: err = %v, want ErrInvalidStreamSpec", n, err)
		}
	}
}
