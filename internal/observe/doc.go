// Package observe serves a running pipeline's metrics and health over HTTP:
// /metrics in the Prometheus text format from a registry of its own (never
// the process-wide default, so that a test or an embedding program sees only
// what it registered), /healthz while the process is alive and /readyz when
// the caller's readiness check passes. It knows nothing of the engine: the
// engine registers a collector and hands in the readiness check
// (internal/engine/observe*.go). docs/metrics.md lists the metrics.
//
// With Settings.Pipeline it also serves /api/pipeline, a JSON view of the
// pipeline the engine builds, and at / a web UI that shows that view: static
// files embedded in the binary (ui/), so it needs no network but the
// listener (docs/ui.md).
package observe
