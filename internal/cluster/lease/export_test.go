package lease

// StaleCopy returns a second Lease for the same acquisition as l, frozen at
// l's current revision: what a process holds whose renewal replies were
// lost, or a zombie once someone else took over.
func StaleCopy(l *Lease) *Lease {
	l.mu.Lock()
	defer l.mu.Unlock()
	return &Lease{b: l.b, key: l.key, holder: l.holder, ttl: l.ttl, raw: l.raw, token: l.token, gen: l.gen,
		rev: l.rev, renewedAt: l.renewedAt}
}
