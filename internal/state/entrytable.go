package state

import "hash/maphash"

// entryTable is the index of the backend's cache: cache key -> entry, by
// open addressing with linear probing over a power-of-two array of (hash,
// entry) slots, at most half full.
//
// Why not a Go map: a state call of a task with many keys probes an index
// far larger than the CPU cache, and the probe's cache misses are most of
// the call's cost (B1: a state_get is ~280 ns, of which the map probe
// ~200 ns). A Go map's probe reads a group's control word and then its slot
// on another cache line; a slot here holds the hash beside the entry
// pointer, so a probe costs one random miss, and warm (below) can fetch the
// slots of a whole batch ahead, letting the CPU overlap those misses.
type entryTable struct {
	seed  maphash.Seed
	slots []entrySlot // len is a power of two, or 0 before the first add
	n     int
}

type entrySlot struct {
	hash uint64
	e    *entry // nil: empty
}

// minTableSlots is the size of a table's first array.
const minTableSlots = 1024

func newEntryTable() entryTable { return entryTable{seed: maphash.MakeSeed()} }

func (t *entryTable) hash(key []byte) uint64 { return maphash.Bytes(t.seed, key) }

// len returns the number of entries.
func (t *entryTable) len() int { return t.n }

// get returns the entry whose cache key is key, or nil.
func (t *entryTable) get(key []byte) *entry {
	if t.n == 0 {
		return nil
	}
	h := t.hash(key)
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.e == nil {
			return nil
		}
		if s.hash == h && s.e.key == string(key) {
			return s.e
		}
	}
}

// add indexes e under e.key, which must not be indexed yet.
func (t *entryTable) add(e *entry) {
	if (t.n+1)*2 > len(t.slots) {
		t.grow()
	}
	t.place(maphash.String(t.seed, e.key), e)
	t.n++
}

func (t *entryTable) place(h uint64, e *entry) {
	mask := uint64(len(t.slots) - 1)
	i := h & mask
	for t.slots[i].e != nil {
		i = (i + 1) & mask
	}
	t.slots[i] = entrySlot{hash: h, e: e}
}

func (t *entryTable) grow() {
	old := t.slots
	t.slots = make([]entrySlot, max(minTableSlots, 2*len(old)))
	for _, s := range old {
		if s.e != nil {
			t.place(s.hash, s.e)
		}
	}
}

// remove unindexes e; it does nothing when e is not indexed. The entries
// after it in its probe run move back (no tombstones), so a get never
// walks past slots of removed entries.
func (t *entryTable) remove(e *entry) {
	if t.n == 0 {
		return
	}
	mask := uint64(len(t.slots) - 1)
	i := maphash.String(t.seed, e.key) & mask
	for t.slots[i].e != e {
		if t.slots[i].e == nil {
			return
		}
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; t.slots[j].e != nil; j = (j + 1) & mask {
		home := t.slots[j].hash & mask
		// The entry at j may fill the hole at i unless its home lies
		// cyclically in (i, j]: then i comes before its home.
		if (j-home)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = entrySlot{}
	t.n--
}

// each calls f for every entry until f returns false, starting at slot
// from (any number; it is taken modulo the size), in slot order, and
// returns the number of slots it visited. f must not add or remove entries.
func (t *entryTable) each(from int, f func(e *entry) bool) int {
	mask := len(t.slots) - 1
	for k := range t.slots {
		if e := t.slots[(from+k)&mask].e; e != nil && !f(e) {
			return k + 1
		}
	}
	return len(t.slots)
}

// warm reads the slots, then the entries, that gets of keys with these
// hashes would read first, and returns something derived from them so the
// compiler keeps the loads. Each loop's iterations are independent and
// short, so the CPU has many of these cache misses in flight at once,
// where gets spread over a guest's calls take them one at a time.
func (t *entryTable) warm(hashes []uint64) uint64 {
	if len(t.slots) == 0 {
		return 0
	}
	mask := uint64(len(t.slots) - 1)
	var sum uint64
	for _, h := range hashes {
		sum += t.slots[h&mask].hash
	}
	for _, h := range hashes {
		if e := t.slots[h&mask].e; e != nil {
			sum += uint64(len(e.key))
		}
	}
	return sum
}
