// Package ctlrec holds a cluster pipeline's control records in its
// control bucket (design ../../../shared/cluster.md §5.1, §5.3) and writes
// them under the coordinator lease (package lease), so that a coordinator
// that lost its lease (a zombie) cannot claim or complete a checkpoint or
// hand key groups to workers:
//
//	assignment          which worker runs which task (package assign)
//	checkpoint.pending  the checkpoint in progress: N, generation, assignment
//	checkpoint.<N>      checkpoint N completed: its global manifest object
//	checkpoint.latest   a copy of the newest checkpoint.<N>
//
// Claim picks N after every N claimed or completed before, read through
// the stream leader, and writes the pending record fenced: two
// coordinators never use one N, because the second's write is refused
// once the first lost the lease, and a new holder reads the pending N of
// the old one before it claims. Complete writes checkpoint.<N>, the
// commit point (what the rename of chk-N is in one process), and then
// checkpoint.latest, both fenced. A crash between the two leaves latest
// behind: Latest reads both and returns the newer.
//
// The records are JSON with a version and strict decoders: they are read
// back from a bucket that other clients of the cluster can write.
package ctlrec
