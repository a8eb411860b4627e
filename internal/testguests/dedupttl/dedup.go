package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

// dedupOp implements the operator; see the package comment.
type dedupOp struct {
	helper *wasmstream.Dedup                  // with {"ttl_ms":N}
	seen   *wasmstream.MapState[string, bool] // without: the config decides
}

var errBadRecord = errors.New("dedupttl: bad record")

// config is the operator's optional config.
type config struct {
	TTLMillis int64 `json:"ttl_ms"`
}

func (d *dedupOp) Init(raw []byte) error {
	var c config
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &c); err != nil || c.TTLMillis < 1 {
			return fmt.Errorf("config must be {\"ttl_ms\":N} with N >= 1, got %q", raw)
		}
		d.helper = wasmstream.NewDedup("seen", time.Duration(c.TTLMillis)*time.Millisecond)
		return nil
	}
	d.seen = wasmstream.NewMapState[string]("seen", wasmstream.BoolCodec)
	return nil
}

func (d *dedupOp) Process(r *wasmstream.Record) error {
	var rec struct {
		K  string `json:"k"`
		ID string `json:"id"`
	}
	if err := json.Unmarshal(r.Value, &rec); err != nil || rec.ID == "" || rec.K != string(r.Key) {
		return fmt.Errorf("%w: want {\"k\":<the key>,\"id\":<non-empty>}, got %q", errBadRecord, r.Value)
	}
	dup, err := d.isDuplicate(rec.ID)
	if err != nil || dup {
		return err
	}
	return wasmstream.Emit("out", r.Key, r.Value)
}

// isDuplicate is the Dedup helper, or the same logic on the undeclared map.
func (d *dedupOp) isDuplicate(id string) (bool, error) {
	if d.helper != nil {
		return d.helper.IsDuplicate(id)
	}
	_, found, err := d.seen.Get(id)
	if err != nil || found {
		return found, err
	}
	return false, d.seen.Put(id, true)
}
