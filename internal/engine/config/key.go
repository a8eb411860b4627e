package config

import "github.com/hashicorp/hcl/v2"

// maxSubjectToken bounds key.subject_token; subjects with more tokens are not realistic.
const maxSubjectToken = 255

// operatorBlocks reads an operator's key block and limits block (at most one each). The key
// block is required unless every input has a key of its own (keyPerInput).
func (d *decoder) operatorBlocks(op *hcl.Block, blocks hcl.Blocks, owner string, keyPerInput bool) (Key, Limits) {
	var key Key
	limits := defaultLimits()
	var seenKey, seenLimits bool
	for _, b := range blocks {
		switch {
		case b.Type == "key" && seenKey, b.Type == "limits" && seenLimits:
			d.errorf(b.DefRange, "%s: %s: only one %s block is allowed; remove this one", owner, b.Type, b.Type)
		case b.Type == "key":
			seenKey, key = true, d.decodeKey(b, owner)
		case b.Type == "limits":
			seenLimits, limits = true, d.decodeLimits(b, owner)
		}
	}
	if !seenKey && !keyPerInput {
		d.errorf(op.DefRange, "%s: key block is required; add e.g. key { json_field = \"account\" } (or subject_token, or header), "+
			"or give every input a key of its own in an input block", owner)
	}
	return key, limits
}

// decodeKey reads a key block (or an event_id block, which has the same settings), which must
// set exactly one way to find the value.
func (d *decoder) decodeKey(b *hcl.Block, owner string) Key {
	a, _ := d.body(b, keySchema, owner+": "+b.Type)
	var set []string
	for _, name := range []string{"json_field", "subject_token", "header"} {
		if a.has(name) {
			if len(set) > 0 {
				a.errorf(name, "%s is already set; keep exactly one of json_field, subject_token or header", set[0])
			}
			set = append(set, name)
		}
	}
	if len(set) == 0 {
		d.errorf(b.DefRange, "%s: %s: set exactly one of json_field, subject_token or header", owner, b.Type)
	}
	var k Key
	if f, st := a.str("json_field"); st == present {
		if !validJSONField(f) {
			a.errorf("json_field", "%q is not a field path; use a top-level field name or a dotted path such as \"customer.id\"", f)
		}
		k.JSONField = f
	}
	k.SubjectToken = int(a.integer("subject_token", 1, maxSubjectToken, 0))
	if h, st := a.str("header"); st == present {
		if !validHeaderName(h) {
			a.errorf("header", "%q is not a header name; header names cannot contain spaces or ':'", h)
		}
		k.Header = h
	}
	return k
}
