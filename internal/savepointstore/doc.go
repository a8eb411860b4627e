// Package savepointstore keeps savepoint archives in a JetStream Object
// Store bucket, so that another machine on the same NATS can restore them.
// It joins the snapshot layer (checkpoint: savepoints on disk and their
// archive format) to the transport (natsio); checkpoint itself imports no
// transport, which internal/layering checks.
package savepointstore
