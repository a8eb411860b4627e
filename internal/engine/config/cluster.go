package config

import "github.com/hashicorp/hcl/v2"

// defaultCluster is the cluster configuration of a file without a cluster block, so that a
// worker can always read its settings.
func defaultCluster() Cluster {
	return Cluster{
		Replicas:      DefaultClusterReplicas,
		WorkerTimeout: DefaultWorkerTimeout,
		LeaseTTL:      DefaultLeaseTTL,
		Stabilization: DefaultStabilization,
	}
}

// decodeCluster reads the cluster block; an attribute left out keeps its default. That the
// pipeline has a server at url is checked with the other blocks (checkCluster), since the
// server block may come later in the file.
func (d *decoder) decodeCluster(b *hcl.Block) Cluster {
	a, _ := d.body(b, clusterSchema, "cluster")
	c := Cluster{
		Replicas: int(a.integer("replicas", 1, MaxReplicas, DefaultClusterReplicas)),
		WorkerTimeout: a.durationIn("worker_timeout", minWorkerTimeout, maxWorkerTimeout, DefaultWorkerTimeout,
			"it is how long a worker's heartbeats may be missing before its ranges move to the other workers"),
		LeaseTTL: a.durationIn("lease_ttl", minLeaseTTL, maxLeaseTTL, DefaultLeaseTTL,
			"it is the time to live of the coordinator and membership leases"),
		Stabilization: a.durationIn("stabilization", 0, maxStabilization, DefaultStabilization,
			"it is how long membership must stay unchanged before ranges are reassigned"),
		Range: b.DefRange,
	}
	checkLeaseTTL(a, c)
	return c
}

// checkLeaseTTL refuses a lease that ends before a worker's heartbeats are declared missing: a
// worker fences itself when its lease expires, so its tasks would stop while the coordinator
// still counts it alive and moves nothing. It warns about a lease that a leader election can
// outlast.
func checkLeaseTTL(a *attrs, c Cluster) {
	if a.failed["lease_ttl"] || a.failed["worker_timeout"] {
		return
	}
	if c.LeaseTTL <= c.WorkerTimeout {
		checkLeaseAboveTimeout(a, c)
		return
	}
	if c.LeaseTTL < electionLeaseTTL {
		a.warnf("lease_ttl", "%q is short: a NATS leader election takes 4-9 s; a lease shorter than about 10 s can expire during one and move work needlessly; use at least %q",
			shortDuration(c.LeaseTTL), shortDuration(electionLeaseTTL))
	}
}

// checkLeaseAboveTimeout reports lease_ttl <= worker_timeout at the setting the user wrote:
// lease_ttl, or worker_timeout when lease_ttl is the default.
func checkLeaseAboveTimeout(a *attrs, c Cluster) {
	const why = "a worker fences itself when its lease expires, so its tasks would stop before the coordinator moves them"
	lease, timeout := shortDuration(c.LeaseTTL), shortDuration(c.WorkerTimeout)
	if a.has("lease_ttl") {
		a.errorf("lease_ttl", "%q must be greater than worker_timeout %q: %s; raise lease_ttl above %q or lower worker_timeout",
			lease, timeout, why, timeout)
		return
	}
	a.errorf("worker_timeout", "%q must be less than lease_ttl %q (the default): %s; lower worker_timeout, or set lease_ttl above %q",
		timeout, lease, why, timeout)
}

// checkCluster refuses a cluster block with the embedded server, which no other process can
// share.
func (d *decoder) checkCluster(p *Pipeline) {
	if p.Cluster.Range.Start.Line != 0 && p.Server.URL == "" {
		d.errorf(p.Cluster.Range, "a cluster block needs server.url: workers share a pipeline through a NATS JetStream cluster; "+
			"the embedded server serves one process (use `wasmstream run`)")
	}
}

// Clustered reports whether the pipeline has a cluster block: `wasmstream
// worker` processes share it through a NATS cluster.
func (p *Pipeline) Clustered() bool { return p.Cluster.Range.Start.Line != 0 }

// DeadLetterReplicas is the replication of DeadLetterStream: the cluster's
// replicas on a clustered pipeline (an R1 stream on one node would stop
// every worker while that node is down), else 1.
func (p *Pipeline) DeadLetterReplicas() int { return p.engineStreamReplicas() }

// ExchangeReplicas is the replication of the exchange streams between
// operators (internal/exchange/FORMAT.md §2), by the same rule as
// DeadLetterReplicas: every worker writes and reads them.
func (p *Pipeline) ExchangeReplicas() int { return p.engineStreamReplicas() }

// engineStreamReplicas is the replication of a stream the engine creates
// for the whole pipeline.
func (p *Pipeline) engineStreamReplicas() int {
	if p.Clustered() {
		return p.Cluster.Replicas
	}
	return 1
}
