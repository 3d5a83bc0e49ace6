package usage

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// assistant is a transcript line of message id with usage in, out, cw, cr.
func assistant(id, at, model string, in, out, cw, cr int) string {
	return `{"type":"assistant","timestamp":"` + at + `","requestId":"req_` + id + `","message":{"id":"` + id + `","model":"` + model +
		`","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":` + itoa(in) + `,"output_tokens":` + itoa(out) +
		`,"cache_creation_input_tokens":` + itoa(cw) + `,"cache_read_input_tokens":` + itoa(cr) + `}}}` + "\n"
}

func itoa(n int) string { return strconv.Itoa(n) }

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// Each message counts once (Claude repeats its usage on every content
// block's line), per day in the reader's zone and per model; a line still
// being written waits; user lines, huge lines and junk are skipped; a new
// file (a /clear) adds to what was counted.
func TestTranscript(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.jsonl")
	tr := New(time.UTC)
	if err := tr.Follow("rel.jsonl"); err == nil {
		t.Fatal("a relative path followed")
	}
	if err := tr.Follow(path); err != nil {
		t.Fatal(err)
	}
	if ch, err := tr.Read(); ch || err != nil {
		t.Fatalf("missing file: %v %v", ch, err)
	}
	appendTo(t, path, `{"type":"user","message":{"content":"hello"}}`+"\n"+
		assistant("m1", "2026-12-06T23:59:00Z", "claude-opus-4-6", 10, 5, 100, 1000)+
		assistant("m1", "2026-12-06T23:59:00Z", "claude-opus-4-6", 10, 5, 100, 1000)+
		`{"type":"user","toolUseResult":"`+strings.Repeat("x", MaxLine+10)+`"}`+"\n"+
		"not json with \"usage\"\n"+
		assistant("m2", "2026-12-07T00:01:00Z", "claude-opus-4-6", 1, 2, 3, 4))
	half := assistant("m3", "2026-12-07T00:02:00Z", "claude-haiku-4", 7, 7, 7, 7)
	appendTo(t, path, half[:40])
	if ch, err := tr.Read(); !ch || err != nil {
		t.Fatalf("first read: %v %v", ch, err)
	}
	want := session.Usage{
		{Day: "2026-12-06", Model: "claude-opus-4-6", Tokens: session.Tokens{Input: 10, Output: 5, CacheWrite: 100, CacheRead: 1000}},
		{Day: "2026-12-07", Model: "claude-opus-4-6", Tokens: session.Tokens{Input: 1, Output: 2, CacheWrite: 3, CacheRead: 4}},
	}
	if got := tr.Usage(); !equal(got, want) {
		t.Fatalf("usage %+v, want %+v", got, want)
	}
	appendTo(t, path, half[40:])
	if ch, _ := tr.Read(); !ch {
		t.Fatal("the rest of the line not counted")
	}
	if ch, _ := tr.Read(); ch {
		t.Fatal("nothing new, but a change")
	}
	want = append(want, session.UsageRow{Day: "2026-12-07", Model: "claude-haiku-4", Tokens: session.Tokens{Input: 7, Output: 7, CacheWrite: 7, CacheRead: 7}})
	want[1], want[2] = want[2], want[1]
	if got := tr.Usage(); !equal(got, want) {
		t.Fatalf("usage %+v, want %+v", got, want)
	}
	// After /clear: another file, counted on top.
	next := filepath.Join(dir, "b.jsonl")
	appendTo(t, next, assistant("m9", "2026-12-07T01:00:00Z", "claude-haiku-4", 1, 1, 1, 1))
	tr.Follow(next)
	tr.Read()
	if got := tr.Usage().Day("2026-12-07"); got != (session.Tokens{Input: 9, Output: 10, CacheWrite: 11, CacheRead: 12}) {
		t.Fatalf("day total %+v", got)
	}
	if got := tr.Usage().Total().Total(); got != 1115+10+28+4 {
		t.Fatalf("total %d", got)
	}
	// Not a regular file.
	tr.Follow(dir)
	if _, err := tr.Read(); err == nil {
		t.Fatal("a directory read as a transcript")
	}
}

func equal(a, b session.Usage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
