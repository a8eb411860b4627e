// Package acceptance holds the black-box acceptance tests of one pipeline
// run by several `wasmstream worker` processes on a 3-node NATS JetStream
// cluster (design ../../../shared/cluster.md §6, acceptance criteria in
// §7 phase 1). It has tests only; this file is its sole non-test file.
//
// Each test starts a real cluster (package clustertest: nats-server
// children that can be SIGKILLed), creates the pipeline's R3 streams, its
// control bucket and its state Object Store (as `wasmstream deploy`
// would, design §5.0), writes one pipeline file per worker (they differ
// only in data_dir), starts the workers as children of the test,
// publishes records over about 200 keys and checks, through recorders on
// connections of their own:
//
//   - every output the model expects is stored exactly once after
//     JetStream's deduplication, with the payload the model gives, and
//     nothing else is stored (accounted by Nats-Msg-Id and by payload);
//   - per key, the stored outputs are 1..n once each, in increasing order,
//     with count == seq: state applied twice, or lost, shows even where
//     deduplication hid the output;
//   - the control bucket's history (every message its stream stored, seen
//     by an ordered consumer from the start, since the bucket keeps one
//     revision per key): each checkpoint.<N> written at most once, as the
//     completion of the claim then pending; generations never decrease
//     (no write of a fenced coordinator is stored); claims and assignment
//     epochs increase; and no two workers' "cluster checkpoint completed"
//     lines name the same id;
//   - for a transactional sink, visibility: outputs are stored only as
//     whole atomic batches, and stored or even published only after the
//     completion record of a checkpoint whose task entry covers their
//     input;
//   - the workers exit 0 within 30 s of SIGTERM.
//
// The tests (design §7 phase 1, acceptance 1–4):
//
//   - TestThreeWorkersEqualOneProcess: 3 workers, no fault;
//   - TestWorkerKillIsRecovered: SIGKILL of a random worker;
//   - TestWorkerKillsTransactional: the same with a transactional sink, 2
//     SIGKILLs, each killed worker restarted under a new id;
//   - TestCoordinatorKill: SIGKILL of the coordinator's worker; a new
//     coordinator must be elected within lease_ttl + 5 s;
//   - TestCoordinatorFreeze: SIGSTOP of the coordinator's worker past
//     lease_ttl, then SIGCONT: a new coordinator meanwhile, the old one
//     steps down, none of its late writes is stored;
//   - TestWorkerPartition: a worker cut off every node by proxies
//     (testutil.FreezeProxy) past lease_ttl, then healed so that what it
//     sent meanwhile arrives late: its tasks move, and none of its
//     outputs (header Wasmstream-Worker) or lease renewals is stored after
//     the heal;
//   - TestNATSFaultsDuringRescale (CLUSTER_LONG=1 only): SIGKILL
//     of the node leading the control bucket, the state Object Store and
//     the source stream, each during a change of the workers or the
//     parallelism, and a node SIGSTOPped for 20 s;
//   - TestNemesis (CLUSTER_LONG=1 only; scripts/nemesis.sh): 24 faults
//     drawn at random from all of the above (SIGKILL of a worker and of
//     the coordinator's worker, SIGSTOP of a worker past its lease, SIGKILL
//     of the node leading the control, state, source or output stream,
//     SIGSTOP of a node for 12 s, a live rescale, a worker leaving and
//     another joining), one per chunk of records while it is published;
//   - TestUnchangedCheckpointUploadsLittle: a checkpoint of unchanged state
//     uploads under 5 % of a full one;
//   - TestRescaleWhilePublishing: `wasmstream scale` to 8 tasks, a 3rd
//     worker joining, `wasmstream scale` to 2, a SIGTERM, all while
//     records are published (200,000; 40,000 with -short); it reports each
//     change's restarts, how long the moved tasks processed nothing, their
//     output gaps, and the output latency of the records published during
//     the change.
//
// BenchmarkClusterThroughput (CLUSTER_BENCH=1, scripts/bench-cluster.sh)
// measures 1 worker against 3 on one cluster, rounds alternating, with
// each worker's records read (filter-on-read) and CPU time.
//
// Lines starting with ACCEPTANCE-SUMMARY give each test's numbers (counts,
// election times, upload sizes).
//
// The operator is internal/testguests/sum2 and each record carries its
// key's sequence number as its value, so the output of a key's n-th record
// has count n and sum n(n+1)/2. The reference is a model of that in Go,
// not a single-process `wasmstream run`: the output of sum2 is simple
// enough, and its ids follow docs/sinks.md (<pipeline>.<operator>.<source>.<stream sequence>.0),
// which is what a single process would store, in both sink modes.
//
// A failing test prints the end of every worker's log (kept in the test's
// temporary directory) and, through clustertest, of every node's.
//
// Run them with
//
//	go test -count=1 -v -timeout 30m ./internal/cluster/acceptance/
//
// Modes:
//
//   - default: 100,000 records per test; one fault per test (two kills
//     for TestWorkerKillsTransactional);
//   - -short: 20,000 records instead, the same faults;
//   - CLUSTER_LONG=1 (with or without -short): more faults:
//     TestWorkerKillIsRecovered and TestWorkerKillsTransactional kill 5
//     times, each killed worker replaced at once, under a new id except
//     the third, restarted under its own id (it waits out its earlier
//     lease, up to lease_ttl); TestCoordinatorKill kills the coordinator
//     3 times, each killed worker replaced under a new id.
//
// ACCEPTANCE_SEED=<seed> draws the same keys and the same killed workers
// again; every test logs its seed. ACCEPTANCE_LOGS=<dir> keeps every
// worker's log in <dir>/<test>/ (the temporary directory is removed after
// a test, failed or not).
//
// Time on a 2-core machine (go test -v, one test at a time): about 15–30 s
// per test with -short, 20–35 s without, 50–60 s per kill test and for
// TestCoordinatorKill with CLUSTER_LONG=1 -short.
package acceptance
