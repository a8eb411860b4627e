// Package docsnippet finds the fenced code snippets of Markdown files, so that tests can parse
// and validate the examples of the documentation: docs are code, and a snippet that no longer
// loads is a bug.
//
// A snippet opens with a line "```LANG" and closes with a line "```". An HTML comment
// "<!-- fragment -->" as the last non-blank line before the opening fence (invisible once
// rendered) marks a snippet that is only part of a file, e.g. one block of a pipeline; what that
// means is up to the test that reads it.
package docsnippet

import (
	"fmt"
	"os"
	"strings"
)

// FragmentMark is the line that marks the next snippet as a fragment.
const FragmentMark = "<!-- fragment -->"

// Snippet is one fenced code block of a Markdown file.
type Snippet struct {
	// File is the Markdown file's path, as given to Read.
	File string
	// Line is the 1-based line of the opening fence: the snippet's first line is Line+1.
	Line int
	// Heading is the text of the nearest heading above the snippet, without its '#'s.
	Heading string
	// Fragment is set when FragmentMark is the last non-blank line before the opening fence.
	Fragment bool
	// Text is the snippet's content, each line ending in a newline.
	Text string
}

// String is the snippet's position, "file:line" of its opening fence.
func (s Snippet) String() string { return fmt.Sprintf("%s:%d", s.File, s.Line) }

// Read returns the snippets of language lang ("hcl") of the Markdown file at path, in order.
func Read(path, lang string) ([]Snippet, error) {
	md, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(string(md), path, lang)
}

// Parse returns the snippets of language lang of the Markdown text md; file names it in the
// snippets and in the error about a fence that is never closed.
func Parse(md, file, lang string) ([]Snippet, error) {
	var out []Snippet
	var open *Snippet // the snippet being read, nil outside a fence
	inOther := false  // inside a fence of another language
	heading, prev := "", ""
	for i, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimRight(line, " \t\r")
		switch {
		case open != nil && trimmed == "```":
			out = append(out, *open)
			open = nil
		case open != nil:
			open.Text += line + "\n"
		case inOther:
			inOther = trimmed != "```"
		case trimmed == "```"+lang:
			open = &Snippet{File: file, Line: i + 1, Heading: heading, Fragment: prev == FragmentMark}
		case strings.HasPrefix(trimmed, "```"):
			inOther = true
		case strings.HasPrefix(trimmed, "#"):
			heading = strings.TrimSpace(strings.TrimLeft(trimmed, "#"))
		}
		if trimmed != "" {
			prev = trimmed
		}
	}
	if open != nil {
		return out, fmt.Errorf("%s: the %s snippet opened here is never closed", open, lang)
	}
	return out, nil
}
