// Package observe serves a running pipeline's metrics and health over HTTP:
// /metrics in the Prometheus text format from a registry of its own (never
// the process-wide default, so that a test or an embedding program sees only
// what it registered), /healthz while the process is alive and /readyz when
// the caller's readiness check passes. It knows nothing of the engine: the
// engine registers a collector and hands in the readiness check
// (internal/engine/observe*.go). docs/metrics.md lists the metrics.
package observe
