package state

import (
	"bytes"
	"strings"
)

// cachedNames is the set of state names that have had an entry in the
// cache, so a query for one key (ReadKey) probes the cache once per name
// instead of walking it. A map state's entries (name, 0 byte, map key) are
// noted under the state's name with hasMap set: their names are unbounded,
// so a query that wants them walks the cache. The set only grows: a name
// whose entries were all evicted costs one wasted probe. Past
// maxCachedNames it stops tracking and ReadKey walks the cache.
type cachedNames struct {
	set      map[string]bool // state name -> has map entries in the cache
	overflow bool
}

// maxCachedNames bounds the set: real operators use a handful of states.
const maxCachedNames = 256

// note records name, the name of an entry entering the cache.
func (n *cachedNames) note(name []byte) {
	if n.overflow {
		return
	}
	base, isMap := name, false
	if i := bytes.IndexByte(name, 0); i >= 0 {
		base, isMap = name[:i], true
	}
	if had, ok := n.set[string(base)]; ok && (had || !isMap) {
		return
	}
	if len(n.set) >= maxCachedNames {
		n.overflow, n.set = true, nil
		return
	}
	if n.set == nil {
		n.set = map[string]bool{}
	}
	n.set[string(base)] = n.set[string(base)] || isMap
}

// overlayCache applies the cache's entries of key for state want to found:
// a cached entry is newer than the store (a clean one equals it).
func (b *Backend) overlayCache(kg int, key []byte, want string, found map[string]Value) {
	if b.names.overflow || strings.IndexByte(want, 0) >= 0 {
		b.overlayCacheWalk(kg, key, want, found)
		return
	}
	var ck []byte
	walk := false
	for name, hasMap := range b.names.set {
		if want != "" && name != want {
			continue
		}
		ck = appendGroupKey(ck[:0], kg, []byte(name), key)
		if e := b.cache.get(ck); e != nil {
			overlayEntry(found, name, e)
		}
		walk = walk || hasMap
	}
	if walk {
		b.overlayCacheWalk(kg, key, want, found)
	}
}

// overlayCacheWalk is overlayCache by reading every cache entry.
func (b *Backend) overlayCacheWalk(kg int, key []byte, want string, found map[string]Value) {
	prefix := appendGroupKey(nil, kg, nil, nil)[:2]
	b.cache.each(0, func(e *entry) bool {
		ck := e.key
		if len(ck) < 4 || ck[:2] != string(prefix) {
			return true
		}
		name := groupKeyName([]byte(ck))
		if ck[4+len(name):] != string(key) || !NameMatches(name, want) {
			return true
		}
		overlayEntry(found, string(name), e)
		return true
	})
}

func overlayEntry(found map[string]Value, name string, e *entry) {
	if !e.present {
		delete(found, name)
		return
	}
	found[name] = Value{Data: bytes.Clone(e.value), ExpiresAt: e.expiresAt, HasExpiry: e.hasExpiry}
}
