package ttlspec

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestTTLWordsRoundTrip(t *testing.T) {
	for _, u := range []UpdateType{OnCreateAndWrite, OnReadAndWrite} {
		if got, err := ParseUpdateType(u.String()); err != nil || got != u {
			t.Errorf("ParseUpdateType(%q) = %v, %v", u, got, err)
		}
	}
	for _, v := range []Visibility{NeverReturnExpired, ReturnExpiredIfNotCleaned} {
		if got, err := ParseVisibility(v.String()); err != nil || got != v {
			t.Errorf("ParseVisibility(%q) = %v, %v", v, got, err)
		}
	}
	for _, d := range []TimeDomain{ProcessingTime, EventTime} {
		if got, err := ParseTimeDomain(d.String()); err != nil || got != d {
			t.Errorf("ParseTimeDomain(%q) = %v, %v", d, got, err)
		}
	}
}

// The config words are the user's interface: pin them.
func TestTTLConfigWords(t *testing.T) {
	tests := map[string]string{
		OnCreateAndWrite.String():          "on_create_and_write",
		OnReadAndWrite.String():            "on_read_and_write",
		NeverReturnExpired.String():        "never_return_expired",
		ReturnExpiredIfNotCleaned.String(): "return_expired_if_not_cleaned",
		ProcessingTime.String():            "processing_time",
		EventTime.String():                 "event_time",
		UpdateType(9).String():             "unknown(9)",
	}
	for got, want := range tests {
		if got != want {
			t.Errorf("word %q, want %q", got, want)
		}
	}
}

// The empty word is the default; anything else unknown is refused with a
// message that lists the valid words.
func TestTTLParseDefaultsAndRejects(t *testing.T) {
	if u, err := ParseUpdateType(""); err != nil || u != OnCreateAndWrite {
		t.Errorf(`ParseUpdateType("") = %v, %v`, u, err)
	}
	if v, err := ParseVisibility(""); err != nil || v != NeverReturnExpired {
		t.Errorf(`ParseVisibility("") = %v, %v`, v, err)
	}
	if d, err := ParseTimeDomain(""); err != nil || d != ProcessingTime {
		t.Errorf(`ParseTimeDomain("") = %v, %v`, d, err)
	}
	for _, bad := range []string{"On_Read_And_Write", "read", " event_time", "processing"} {
		_, e1 := ParseUpdateType(bad)
		_, e2 := ParseVisibility(bad)
		_, e3 := ParseTimeDomain(bad)
		for _, err := range []error{e1, e2, e3} {
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("parse %q: %v, want ErrInvalid", bad, err)
			}
		}
	}
	_, err := ParseTimeDomain("wall")
	if err == nil || !strings.Contains(err.Error(), "event_time") {
		t.Errorf("error %v does not list the valid words", err)
	}
}

func TestTTLValidate(t *testing.T) {
	ok := TTL{Duration: time.Minute}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid TTL: %v", err)
	}
	bad := map[string]TTL{
		"zero duration":      {},
		"negative duration":  {Duration: -time.Second},
		"unknown update":     {Duration: time.Second, Update: 2},
		"unknown visibility": {Duration: time.Second, Visibility: 2},
		"unknown domain":     {Duration: time.Second, TimeDomain: 2},
	}
	for what, ttl := range bad {
		if err := ttl.Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Validate = %v, want ErrInvalid", what, err)
		}
	}
	want := "{Duration: 1m0s, Update: on_read_and_write, Visibility: return_expired_if_not_cleaned, TimeDomain: event_time}"
	if got := (TTL{time.Minute, OnReadAndWrite, ReturnExpiredIfNotCleaned, EventTime}).String(); got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
}

// FuzzParseTTLWords: the config words come from user files. A parse never
// panics, fails only with ErrInvalid, and what it accepts prints
// back as the same word (or is the empty default).
func FuzzParseTTLWords(f *testing.F) {
	for _, s := range []string{"", "on_create_and_write", "on_read_and_write", "never_return_expired",
		"return_expired_if_not_cleaned", "processing_time", "event_time", "x", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		check := func(word string, err error) {
			if err != nil {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("parse %q: %v does not wrap ErrInvalid", s, err)
				}
				return
			}
			if s != "" && word != s {
				t.Fatalf("parse %q printed back as %q", s, word)
			}
		}
		u, err := ParseUpdateType(s)
		check(u.String(), err)
		v, err := ParseVisibility(s)
		check(v.String(), err)
		d, err := ParseTimeDomain(s)
		check(d.String(), err)
	})
}
