package state

import "bytes"

// maxPrefetchNames bounds the names PrefetchBatch warms per key: real
// operators read one or two states per record.
const maxPrefetchNames = 2

// prefetch remembers the state names the running batch uses, so that the
// next batch's keys can be warmed for them (PrefetchBatch).
type prefetch struct {
	learned [maxPrefetchNames][]byte // names used since the last PrefetchBatch
	nLearn  int
	names   [maxPrefetchNames][]byte // the names PrefetchBatch warms
	nNames  int
	hashes  []uint64 // cache-key hashes of the batch, computed before any slot is read
	sink    uint64   // what warming read, so the compiler keeps the reads
}

// PrefetchBatch warms the CPU cache for the state calls of a batch about
// to run: for every key, it reads the cache slots and entries of the state
// names the previous batch used. Those reads are cache misses when the
// task has many keys; one tight loop over the batch has many of them in
// flight at once, where the guest's state calls, one per record between
// its other work, would wait for each in turn. It changes nothing the
// backend holds or reports: a name or key it guesses wrong costs only its
// reads.
func (b *Backend) PrefetchBatch(keys [][]byte) {
	p := &b.prefetch
	for j := range p.nLearn {
		p.names[j] = append(p.names[j][:0], p.learned[j]...)
	}
	p.nNames, p.nLearn = p.nLearn, 0
	if b.closed || p.nNames == 0 || b.cache.len() == 0 {
		return
	}
	// Hashing first, then reading: a loop that only reads lets the CPU run
	// far ahead; with the hashing inside, it would hold one or two misses.
	p.hashes = p.hashes[:0]
	for _, key := range keys {
		if len(key) > MaxKeyLen {
			continue
		}
		kg := KeyGroup(key, b.opts.MaxParallelism)
		for _, name := range p.names[:p.nNames] {
			b.keyBuf = appendGroupKey(b.keyBuf[:0], kg, name, key)
			p.hashes = append(p.hashes, b.cache.hash(b.keyBuf))
		}
	}
	p.sink += b.cache.warm(p.hashes)
}

// learn notes a state name a state call used, for the next PrefetchBatch.
// Names of map entries (with a 0 byte) are not noted: a map state's
// entries differ from record to record.
func (p *prefetch) learn(name []byte) {
	if p.nLearn == maxPrefetchNames {
		return
	}
	for _, n := range p.learned[:p.nLearn] {
		if bytes.Equal(n, name) {
			return
		}
	}
	if bytes.IndexByte(name, 0) >= 0 {
		return
	}
	p.learned[p.nLearn] = append(p.learned[p.nLearn][:0], name...)
	p.nLearn++
}
