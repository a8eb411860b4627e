package config

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// state says what an attribute read produced. An invalid value has already been reported, so
// callers only decide whether to use the value or fall back to the default.
type state int

const (
	absent  state = iota // not written, or written as null
	invalid              // written, but wrong; a diagnostic was recorded
	present              // written and valid
)

// attrs reads the attributes of one block (or of the file's top level). Every message it
// reports starts with the block's owner and the attribute name, e.g.
// `operator "risk": parallelism: ...`, and points at the attribute's value.
type attrs struct {
	d     *decoder
	owner string    // `operator "risk"`, `server`, or "" at the top level
	def   hcl.Range // where "is required" errors point: the block header
	all   hcl.Attributes
	// failed holds attributes already reported as invalid, so that checks depending on them
	// stay quiet instead of adding a second, misleading message.
	failed map[string]bool
}

// label prefixes a message with the owner and attribute name.
func (a *attrs) label(name string) string {
	if a.owner == "" {
		return name + ": "
	}
	return a.owner + ": " + name + ": "
}

// rng is the range of an attribute's value, or the block header when it is absent.
func (a *attrs) rng(name string) hcl.Range {
	if at := a.all[name]; at != nil {
		return at.Expr.Range()
	}
	return a.def
}

func (a *attrs) errorf(name, format string, args ...any) {
	a.errorAt(a.rng(name), name, format, args...)
}

func (a *attrs) errorAt(r hcl.Range, name, format string, args ...any) {
	a.d.errorf(r, a.label(name)+format, args...)
}

func (a *attrs) warnf(name, format string, args ...any) {
	a.d.warnf(a.rng(name), a.label(name)+format, args...)
}

// missing reports a required attribute that is not set; hint says how to set it.
func (a *attrs) missing(name, hint string) {
	owner := ""
	if a.owner != "" {
		owner = a.owner + ": "
	}
	a.d.errorf(a.def, "%s%s is required; %s", owner, name, hint)
}

// has reports whether the attribute is written at all (null included).
func (a *attrs) has(name string) bool { return a.all[name] != nil }

// value evaluates an attribute and converts it to ty; want describes ty for the error message
// ("a string") and hint is appended to it.
func (a *attrs) value(name string, ty cty.Type, want, hint string) (cty.Value, state) {
	at := a.all[name]
	if at == nil {
		return cty.NilVal, absent
	}
	v, hds := at.Expr.Value(a.d.ctx)
	a.d.add(fromHCL(hds, strings.TrimSuffix(a.label(name), ": "))...)
	if hds.HasErrors() {
		return a.fail(name)
	}
	if v.IsNull() {
		return cty.NilVal, absent
	}
	cv, err := convert.Convert(v, ty)
	switch {
	case err != nil || !cv.IsWhollyKnown():
		a.errorf(name, "must be %s, got %s%s", want, describe(v), hint)
		return a.fail(name)
	case containsNull(cv):
		a.errorf(name, "must be %s, without null elements", want)
		return a.fail(name)
	}
	return cv, present
}

func (a *attrs) fail(name string) (cty.Value, state) {
	if a.failed == nil {
		a.failed = map[string]bool{}
	}
	a.failed[name] = true
	return cty.NilVal, invalid
}

// containsNull reports a null element in a list or map, which a string conversion lets through.
func containsNull(v cty.Value) bool {
	if !v.CanIterateElements() {
		return false
	}
	for it := v.ElementIterator(); it.Next(); {
		if _, e := it.Element(); e.IsNull() {
			return true
		}
	}
	return false
}

// describe names a value's type for an error message, in the words of the config language.
func describe(v cty.Value) string {
	ty := v.Type()
	switch {
	case !v.IsWhollyKnown():
		return "an unknown value"
	case ty == cty.String || ty == cty.Number || ty == cty.Bool:
		return fmt.Sprintf("%s %s", ty.FriendlyName(), literal(v))
	case ty.IsTupleType() || ty.IsListType() || ty.IsSetType():
		return "a list"
	case ty.IsObjectType() || ty.IsMapType():
		return "a map"
	default:
		return ty.FriendlyName()
	}
}

// literal prints a primitive value as the user would write it.
func literal(v cty.Value) string {
	switch v.Type() {
	case cty.String:
		return fmt.Sprintf("%q", v.AsString())
	case cty.Number:
		bf := v.AsBigFloat()
		if n, acc := bf.Int64(); acc == big.Exact {
			return strconv.FormatInt(n, 10)
		}
		return bf.Text('g', -1)
	default:
		return strconv.FormatBool(v.True())
	}
}

// str reads a string attribute.
func (a *attrs) str(name string) (string, state) {
	v, st := a.value(name, cty.String, "a string", "")
	if st != present {
		return "", st
	}
	return v.AsString(), present
}

// boolean reads a bool attribute, or returns def when it is absent or invalid.
func (a *attrs) boolean(name string, def bool) bool {
	v, st := a.value(name, cty.Bool, "true or false", "")
	if st != present {
		return def
	}
	return v.True()
}

// strOr reads a string attribute, or returns def when it is absent or invalid.
func (a *attrs) strOr(name, def string) string {
	if s, st := a.str(name); st == present {
		return s
	}
	return def
}

// enum reads a string attribute that must be one of allowed; def is used when it is absent.
func (a *attrs) enum(name, def string, allowed ...string) string {
	s, st := a.str(name)
	if st != present {
		return def
	}
	for _, ok := range allowed {
		if s == ok {
			return s
		}
	}
	a.errorf(name, "%q is not supported; use one of: %s", s, strings.Join(allowed, ", "))
	return def
}

// integer reads a whole number in [lo, hi], or returns def when it is absent or invalid.
func (a *attrs) integer(name string, lo, hi, def int64) int64 {
	v, st := a.value(name, cty.Number, "a whole number", "")
	if st != present {
		return def
	}
	bf := v.AsBigFloat()
	if !bf.IsInt() {
		a.errorf(name, "must be a whole number, got %s", literal(v))
		return def
	}
	switch {
	case bf.Cmp(new(big.Float).SetInt64(lo)) >= 0 && bf.Cmp(new(big.Float).SetInt64(hi)) <= 0:
	case hi == maxInt64:
		a.errorf(name, "must be at least %d, got %s", lo, literal(v))
		return def
	default:
		a.errorf(name, "must be from %d to %d, got %s", lo, hi, literal(v))
		return def
	}
	n, _ := bf.Int64()
	return n
}

// duration reads a positive duration written for time.ParseDuration, or returns def.
func (a *attrs) duration(name string, def time.Duration) time.Duration {
	d, s, st := a.durationText(name)
	if st != present {
		return def
	}
	if d <= 0 {
		a.errorf(name, "must be positive, got %q", s)
		a.fail(name)
		return def
	}
	return d
}

// nonNegativeDuration reads a duration of zero or more, or returns def; zero is appended to the
// message about a negative value and says what "0s" means for this setting.
func (a *attrs) nonNegativeDuration(name string, def time.Duration, zero string) (time.Duration, state) {
	d, s, st := a.durationText(name)
	if st != present {
		return def, st
	}
	if d < 0 {
		a.errorf(name, "must not be negative, got %q; %s", s, zero)
		a.fail(name)
		return def, invalid
	}
	return d, present
}

// durationIn reads a duration in [lo, hi], or returns def; what says what the setting is for
// in the message about a value out of range.
func (a *attrs) durationIn(name string, lo, hi, def time.Duration, what string) time.Duration {
	d, s, st := a.durationText(name)
	switch {
	case st != present:
		return def
	case d < lo || d > hi:
		a.errorf(name, "must be from %q to %q, got %q: %s, e.g. %q", shortDuration(lo), shortDuration(hi), s, what, shortDuration(def))
		a.fail(name)
		return def
	}
	return d
}

// shortDuration prints d as one would write it: "1h" and "10m" rather than "1h0m0s" and "10m0s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// durationText reads a duration written for time.ParseDuration and also returns the text as
// written, for messages about its value.
func (a *attrs) durationText(name string) (time.Duration, string, state) {
	s, st := a.str(name)
	if st != present {
		return 0, "", st
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		a.errorf(name, "%q is not a duration; write e.g. \"500ms\", \"5s\" or \"2m\"", s)
		a.fail(name)
		return 0, s, invalid
	}
	return d, s, present
}

// strList reads a list of strings with the range of each element, so that a bad element is
// reported where it is written. ranges falls back to the whole value when the list is not a
// literal (e.g. the result of a function).
func (a *attrs) strList(name, hint string) ([]string, []hcl.Range, state) {
	v, st := a.value(name, cty.List(cty.String), "a list of strings", hint)
	if st != present {
		return nil, nil, st
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		out = append(out, e.AsString())
	}
	return out, a.elementRanges(name, len(out)), present
}

func (a *attrs) elementRanges(name string, n int) []hcl.Range {
	whole := a.rng(name)
	ranges := make([]hcl.Range, n)
	exprs, hds := hcl.ExprList(a.all[name].Expr)
	for i := range ranges {
		ranges[i] = whole
		if !hds.HasErrors() && len(exprs) == n {
			ranges[i] = exprs[i].Range()
		}
	}
	return ranges
}

// strMap reads a map of strings with the range of each value, keyed like the map.
func (a *attrs) strMap(name, hint string) (map[string]string, map[string]hcl.Range, state) {
	v, st := a.value(name, cty.Map(cty.String), "a map of strings", hint)
	if st != present {
		return nil, nil, st
	}
	out := make(map[string]string, v.LengthInt())
	ranges := make(map[string]hcl.Range, len(out))
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		out[k.AsString()] = e.AsString()
		ranges[k.AsString()] = a.rng(name)
	}
	a.valueRanges(name, ranges)
	return out, ranges, present
}

// valueRanges narrows each entry of ranges to where its value is written, when the map is a
// literal whose keys evaluate cleanly.
func (a *attrs) valueRanges(name string, ranges map[string]hcl.Range) {
	pairs, hds := hcl.ExprMap(a.all[name].Expr)
	if hds.HasErrors() {
		return
	}
	for _, kv := range pairs {
		k, hds := kv.Key.Value(a.d.ctx)
		if hds.HasErrors() || k.IsNull() || !k.IsWhollyKnown() {
			continue
		}
		if k, err := convert.Convert(k, cty.String); err == nil {
			if _, ok := ranges[k.AsString()]; ok {
				ranges[k.AsString()] = kv.Value.Range()
			}
		}
	}
}
