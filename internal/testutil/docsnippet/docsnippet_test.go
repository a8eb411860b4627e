package docsnippet

import (
	"fmt"
	"strings"
	"testing"
)

const sample = "# Title\n" +
	"\n" +
	"```hcl\n" +
	"name = \"a\"\n" +
	"# not a heading\n" +
	"```\n" +
	"## Part two\n" +
	"```go\n" +
	"```hcl\n" + // inside a Go fence: not a snippet
	"```\n" +
	"<!-- fragment -->\n" +
	"\n" +
	"```hcl\n" +
	"sink \"s\" {}\n" +
	"```\n" +
	"```\n" +
	"plain\n" +
	"```\n"

func TestParse(t *testing.T) {
	got, err := Parse(sample, "x.md", "hcl")
	if err != nil {
		t.Fatal(err)
	}
	want := []Snippet{
		{File: "x.md", Line: 3, Heading: "Title", Text: "name = \"a\"\n# not a heading\n"},
		{File: "x.md", Line: 13, Heading: "Part two", Fragment: true, Text: "sink \"s\" {}\n"},
	}
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if got[1].String() != "x.md:13" {
		t.Errorf("String() = %q", got[1])
	}
}

func TestParseUnclosed(t *testing.T) {
	_, err := Parse("text\n```hcl\nname = \"a\"\n", "x.md", "hcl")
	if err == nil || !strings.Contains(err.Error(), "x.md:2: the hcl snippet opened here is never closed") {
		t.Errorf("err = %v", err)
	}
}
