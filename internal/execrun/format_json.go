package execrun

// The objects of WriteJSON. Bytes appear as "x" with "x_encoding" (show.go):
// JSON embedded as is, text as a string, other bytes as hex or base64.

type outputLine struct {
	Type          string              `json:"type"` // "output"
	Line          int                 `json:"line"`
	Sequence      uint64              `json:"sequence"`
	Output        string              `json:"output"`
	Sink          string              `json:"sink"`
	Subject       string              `json:"subject"`
	MsgID         string              `json:"msg_id,omitempty"`
	Key           string              `json:"key"`
	KeyEncoding   string              `json:"key_encoding"`
	Headers       map[string][]string `json:"headers,omitempty"`
	Value         any                 `json:"value"`
	ValueEncoding string              `json:"value_encoding"`
}

type deadLetterLine struct {
	Type          string `json:"type"` // "dead_letter"
	Line          int    `json:"line"`
	Sequence      uint64 `json:"sequence"`
	Subject       string `json:"subject"`
	Reason        string `json:"reason"`
	Value         any    `json:"value"`
	ValueEncoding string `json:"value_encoding"`
}

type stateLine struct {
	Type           string `json:"type"` // "state"
	Key            string `json:"key"`
	KeyEncoding    string `json:"key_encoding"`
	State          string `json:"state"`
	MapKey         string `json:"map_key,omitempty"`
	MapKeyEncoding string `json:"map_key_encoding,omitempty"`
	Value          any    `json:"value"`
	ValueEncoding  string `json:"value_encoding"`
	ExpiresAt      string `json:"expires_at,omitempty"`
}

type summaryLine struct {
	Type             string `json:"type"` // "summary"
	Operator         string `json:"operator"`
	Input            string `json:"input"`
	Records          uint64 `json:"records"`
	Processed        uint64 `json:"processed"`
	Emitted          uint64 `json:"emitted"`
	DeadLettered     uint64 `json:"dead_lettered"`
	InstanceRestarts uint64 `json:"instance_restarts"`
	StateEntries     int    `json:"state_entries"`
	StateDir         string `json:"state_dir,omitempty"`
}

func jsonOutput(o Output) outputLine {
	k, v := show(o.Key), show(o.Value)
	return outputLine{Type: "output", Line: o.Line, Sequence: o.Sequence, Output: o.Output, Sink: o.Sink, Subject: o.Subject, MsgID: o.MsgID,
		Key: k.Text, KeyEncoding: k.Encoding, Headers: o.Headers, Value: v.jsonValue(), ValueEncoding: v.Encoding}
}

func jsonDeadLetter(d DeadLetter) deadLetterLine {
	v := show(d.Value)
	return deadLetterLine{Type: "dead_letter", Line: d.Line, Sequence: d.Sequence, Subject: d.Subject, Reason: d.Reason,
		Value: v.jsonValue(), ValueEncoding: v.Encoding}
}

func jsonState(s StateValue) stateLine {
	k, v := show(s.Key), show(s.Value)
	l := stateLine{Type: "state", Key: k.Text, KeyEncoding: k.Encoding, State: s.State, Value: v.jsonValue(), ValueEncoding: v.Encoding}
	if s.IsMap {
		mk := show(s.MapKey)
		l.MapKey, l.MapKeyEncoding = mk.Text, mk.Encoding
	}
	if s.ExpiresAt != 0 {
		l.ExpiresAt = expiryTime(s.ExpiresAt)
	}
	return l
}

func jsonSummary(r *Result) summaryLine {
	s := r.Stats
	return summaryLine{Type: "summary", Operator: r.Operator, Input: r.Input, Records: s.Records, Processed: s.Processed, Emitted: s.Emitted,
		DeadLettered: s.DeadLettered, InstanceRestarts: s.InstanceRestarts, StateEntries: len(r.State), StateDir: r.StateDir}
}
