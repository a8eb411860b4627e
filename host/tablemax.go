package host

// boundTables returns wasm with the maximum that CheckStructure granted
// written into each table that declared none, or wasm itself when every
// table declared one. The tables' limits become "flags|1, min, max"; the
// table section is re-encoded with its new size.
func boundTables(wasm []byte, s *Shape) []byte {
	if s.UnboundedTables == 0 {
		return wasm
	}
	sec := s.tableSection
	old := wasm[sec.start : sec.start+sec.size]
	payload := make([]byte, 0, sec.size+5*int(s.UnboundedTables))
	at := 0
	for _, t := range s.tables {
		if !t.grant {
			continue
		}
		payload = append(payload, old[at:t.flags]...)
		payload = append(payload, old[t.flags]|1)
		payload = append(payload, old[t.flags+1:t.end]...)
		payload = appendU32(payload, t.max)
		at = t.end
	}
	payload = append(payload, old[at:]...)
	out := make([]byte, 0, len(wasm)+len(payload)-sec.size+5)
	out = append(out, wasm[:sec.header]...)
	out = append(out, secTable)
	out = appendU32(out, uint32(len(payload)))
	out = append(out, payload...)
	return append(out, wasm[sec.start+sec.size:]...)
}

// appendU32 appends v as an unsigned LEB128.
func appendU32(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}
