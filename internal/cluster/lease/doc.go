// Package lease is the cluster's coordinator election and its fenced
// writes, on one JetStream KV bucket (design ../../../shared/cluster.md
// §5.1; measured facts in §4).
//
// A worker becomes coordinator by creating the lease key with a per-key TTL
// (Acquire); the key's revision at that create is its generation, which
// grows across takeovers because it is a stream sequence. It keeps the
// lease by renewing before the TTL runs out (Renew). Every decision it
// writes carries the lease as a condition that the server checks
// (FencedPublish): once the lease expired or changed hands, the write is
// refused and stores nothing, so a paused or partitioned former
// coordinator (a zombie) cannot overwrite its successor's decisions. This
// is Arroyo's generation plus CommitPermit, with the check done by
// nats-server instead of by a controller.
//
// # Which revision fences
//
// The fence is the pair of headers
//
//	Nats-Expected-Last-Subject-Sequence: <current lease revision>
//	Nats-Expected-Last-Subject-Sequence-Subject: $KV.<bucket>.<key>
//
// (nats-server v2.15.2 stream.go: JSExpectedLastSubjSeq and
// JSExpectedLastSubjSeqSubj; nats.go jetstream WithExpectLastSequenceForSubject).
// The server compares the number with the sequence of the last message
// stored on the lease subject. Every renewal stores a new message there, so
// the fence must carry the revision of the latest successful renewal, not
// the generation: Lease keeps both. Renewals and fenced writes of one Lease
// are serialized, because the server also refuses (10164) a conditional
// write while another write conditioned on the same subject is in flight.
// Three consequences:
//
//   - Fenced writes only work inside the bucket's own stream (KV_<bucket>,
//     subjects $KV.<bucket>.>): the server looks the lease subject up in the
//     store of the stream being written, where another stream has no such
//     subject. FencedPublish refuses other subjects. Other streams need a
//     fence subject of their own (design §5.2, phase 3).
//   - An expired lease fences itself: expiry stores a marker (or removes the
//     message), so the lease subject's last sequence changes even before
//     anyone takes over.
//   - A renewal whose acknowledgement was lost leaves the Lease with an old
//     revision. A refused write is therefore checked with a leader read: if
//     the last message on the lease subject is this acquisition's own value
//     (a random token per Acquire), the Lease adopts that revision and
//     retries once; otherwise the lease is lost (ErrLost, sticky).
//
// # Reads and the deadline
//
// LeaderGet reads through $JS.API.STREAM.MSG.GET, which only the stream
// leader answers (nats-server jetstream_api.go, jsMsgGetRequest), rather
// than Direct Get, which any replica answers and which returned stale
// values for 6–13 % of reads while a node was down (design §4, ADR-8).
//
// ValidUntil is the self-fencing deadline for effects the server cannot
// fence (uploads, unconditioned publishes): the send time of the last
// successful renewal plus the TTL minus Margin, on the monotonic clock.
//
// The bucket has History 1, since with more history the expiry of the
// newest revision brought the previous one back (measured), and a limit
// marker TTL, which per-key TTLs require. nats.go's kv.Update cannot carry
// a TTL (v1.55.0 kv.go passes 0), so Renew publishes on $KV.<bucket>.<key>
// itself with the Nats-TTL header and the expected last subject sequence.
package lease
