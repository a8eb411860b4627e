package natsio

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestPublishJSONLinesWithIDs(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "IN", "in.>")
	input := "{\"id\":\"a\",\"v\":1}\n\n  \r\n{\"id\":\"b\",\"v\":2}\r\n{\"id\":7,\"v\":3}\n{\"id\":\"a\",\"v\":9}"
	var progress []int
	res, err := PublishJSONLines(testCtx(t), c, strings.NewReader(input), "in.x", "id", func(n int) { progress = append(progress, n) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Lines != 6 || res.Published != 4 || res.Duplicates != 1 {
		t.Fatalf("result = %+v, want 6 lines, 4 published, 1 duplicate", res)
	}
	if len(progress) != 1 || progress[0] != 4 {
		t.Fatalf("progress calls = %v, want [4]", progress)
	}
	src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "IN"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	got := fetchN(t, src, 3)
	wantIDs := []string{"a", "b", "7"}
	for i, m := range got {
		if m.Header.Get("Nats-Msg-Id") != wantIDs[i] || m.Subject != "in.x" {
			t.Fatalf("message %d: subject %s, id %q, want %q", i, m.Subject, m.Header.Get("Nats-Msg-Id"), wantIDs[i])
		}
	}
	if string(got[1].Data) != `{"id":"b","v":2}` {
		t.Fatalf("line stored as %q (want trimmed)", got[1].Data)
	}

	// Running the same input again stores nothing new.
	res, err = PublishJSONLines(testCtx(t), c, strings.NewReader(input), "in.x", "id", nil)
	if err != nil || res.Published != 4 || res.Duplicates != 4 {
		t.Fatalf("second run = %+v, %v; want 4 duplicates", res, err)
	}
}

func TestPublishJSONLinesProgress(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "IN", "in.>")
	var b strings.Builder
	for i := range 2*ProgressEvery + 5 {
		fmt.Fprintf(&b, "{\"n\":%d}\n", i)
	}
	var progress []int
	res, err := PublishJSONLines(testCtx(t), c, strings.NewReader(b.String()), "in.x", "", func(n int) { progress = append(progress, n) })
	if err != nil || res.Published != 2*ProgressEvery+5 || res.Duplicates != 0 {
		t.Fatalf("result = %+v, %v", res, err)
	}
	want := []int{ProgressEvery, 2 * ProgressEvery, 2*ProgressEvery + 5}
	if fmt.Sprint(progress) != fmt.Sprint(want) {
		t.Fatalf("progress = %v, want %v", progress, want)
	}
}

func TestPublishJSONLinesBadLine(t *testing.T) {
	tests := []struct {
		name, input, idField, want string
		published                  uint64
	}{
		{"not json", "{\"id\":\"a\"}\n\n{\"id\":\"b\"}\n{oops}\n{\"id\":\"c\"}\n", "id", "line 4: not valid JSON", 2},
		{"no id", "{\"id\":\"a\"}\n{\"x\":1}\n", "id", `line 2: message id: natsio: record key missing: JSON field "id" not found`, 1},
		{"empty id", "{\"id\":\"\"}\n", "id", `line 1: message id: JSON field "id" is empty`, 0},
		{"array with id field", "[1]\n", "id", "line 1: message id", 0},
		{"truncated", "{\"a\":1}\n{\"a\":", "", "line 2: not valid JSON", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := embedded(t)
			ensureStream(t, c, "IN", "in.>")
			res, err := PublishJSONLines(testCtx(t), c, strings.NewReader(tt.input), "in.x", tt.idField, nil)
			if !errors.Is(err, ErrBadLine) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrBadLine containing %q", err, tt.want)
			}
			if res.Published != tt.published {
				t.Fatalf("published %d, want %d (the lines before the bad one)", res.Published, tt.published)
			}
		})
	}
}

func TestPublishJSONLinesNoStream(t *testing.T) {
	c := embedded(t)
	input := strings.Repeat("{\"a\":1}\n", 10)
	_, err := PublishJSONLines(testCtx(t), c, strings.NewReader(input), "nowhere.x", "", nil)
	if !errors.Is(err, ErrNoStream) || !strings.Contains(err.Error(), "nowhere.x") {
		t.Fatalf("err = %v, want ErrNoStream", err)
	}
}

func TestPublishJSONLinesArguments(t *testing.T) {
	c := embedded(t)
	if _, err := PublishJSONLines(testCtx(t), c, strings.NewReader(""), "in.*", "", nil); !errors.Is(err, ErrInvalidStreamSpec) {
		t.Fatalf("wildcard subject: err = %v", err)
	}
	if _, err := PublishJSONLines(testCtx(t), c, strings.NewReader(""), "in.x", "a..b", nil); !errors.Is(err, ErrInvalidExtractor) {
		t.Fatalf("bad id field: err = %v", err)
	}
}

func TestPublishJSONLinesTooLarge(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "IN", "in.>")
	big := `{"a":"` + strings.Repeat("x", int(c.NC.MaxPayload())) + `"}`
	_, err := PublishJSONLines(testCtx(t), c, strings.NewReader("{}\n"+big+"\n"), "in.x", "", nil)
	if !errors.Is(err, ErrBadLine) || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "max payload") {
		t.Fatalf("err = %v, want ErrBadLine about line 2's size", err)
	}
}
