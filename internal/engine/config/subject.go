package config

import (
	"strings"
	"unicode"
)

// NATS subjects are dot-separated tokens; "*" matches one token and a final ">" matches one or
// more. These helpers follow nats-server's rules so that the config is refused here, with a
// position, rather than by the server at run time.

// validSubject reports whether s is a well-formed subject, wildcards allowed. As in nats-server,
// "*" and ">" are wildcards only as whole tokens ("a*" is a literal token).
func validSubject(s string) bool {
	if s == "" || strings.IndexFunc(s, notSubjectRune) >= 0 {
		return false
	}
	tokens := strings.Split(s, ".")
	for i, t := range tokens {
		switch {
		case t == "":
			return false
		case t == ">" && i != len(tokens)-1:
			return false
		}
	}
	return true
}

func notSubjectRune(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }

// hasWildcard reports whether a valid subject contains a "*" or ">" token.
func hasWildcard(s string) bool {
	for _, t := range strings.Split(s, ".") {
		if t == "*" || t == ">" {
			return true
		}
	}
	return false
}

// subjectsCollide reports whether some literal subject matches both a and b.
func subjectsCollide(a, b string) bool {
	at, bt := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; ; i++ {
		if i == len(at) || i == len(bt) {
			return len(at) == len(bt)
		}
		x, y := at[i], bt[i]
		if x == ">" || y == ">" {
			return true
		}
		if x != y && x != "*" && y != "*" {
			return false
		}
	}
}

// subjectIsSubset reports whether every literal subject matched by sub is matched by pattern.
func subjectIsSubset(sub, pattern string) bool {
	st, pt := strings.Split(sub, "."), strings.Split(pattern, ".")
	for i := 0; ; i++ {
		if i == len(st) || i == len(pt) {
			return len(st) == len(pt)
		}
		s, p := st[i], pt[i]
		switch {
		case p == ">":
			return true
		case s == ">":
			return false
		case p == "*":
			continue
		case s == "*" || s != p:
			return false
		}
	}
}

// apiSubjects are the server's own subject spaces; a stream with acknowledgements may not
// capture them, except for the advisory spaces listed in apiSubjectExceptions.
var (
	apiSubjects          = []string{"$JS.>", "$JSC.>", "$NRG.>", "$SYS.>"}
	apiSubjectExceptions = []string{"$JS.EVENT.>", "$SYS.ACCOUNT.>"}
)

// capturesAPI reports whether a stream subject would capture server API traffic, which
// JetStream refuses.
func capturesAPI(subject string) bool {
	for _, ex := range apiSubjectExceptions {
		if subjectIsSubset(subject, ex) {
			return false
		}
	}
	for _, api := range apiSubjects {
		if subjectsCollide(subject, api) {
			return true
		}
	}
	return false
}

// validStreamName follows nats-server: no whitespace, '.', '*', '>' or path separators, because
// the name becomes part of API subjects and of directory names.
func validStreamName(s string) bool {
	return s != "" && !strings.ContainsAny(s, ".*>/\\") && strings.IndexFunc(s, notSubjectRune) < 0
}

// validObjectName is the rule for source, operator and sink names: they appear in subjects
// (dead-letter), directory names and metric labels, so they stay within [A-Za-z0-9_-].
func validObjectName(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == ""
}

// validPipelineName is the rule for the pipeline's name: lowercase, because it also names
// directories and subjects that users type.
func validPipelineName(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") == ""
}

// validJSONField accepts a field name or a dotted path of non-empty field names.
func validJSONField(s string) bool {
	for _, part := range strings.Split(s, ".") {
		if part == "" {
			return false
		}
	}
	return s != ""
}

// validHeaderName rejects what cannot appear in a NATS header name.
func validHeaderName(s string) bool {
	return s != "" && !strings.Contains(s, ":") && strings.IndexFunc(s, notSubjectRune) < 0
}
