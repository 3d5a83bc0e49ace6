package app

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/review"
	"github.com/heimdall-tui/heimdall-tui/backend/session"

	"github.com/heimdall-tui/heimdall-tui/themes"
)

const stubDiff = `diff --git a/a.txt b/a.txt
--- a/a.txt
+++ b/a.txt
@@ -1,2 +1,3 @@
 one
 two
+three (the agent)
diff --git a/b.go b/b.go
--- a/b.go
+++ b/b.go
@@ -1,3 +1,3 @@
 func B() int {
-	return 1
+	return 2
 }
`

// D on the selected session takes its diff off the event loop and shows
// it; ] and } walk hunks and files; esc goes back; an error is reported.
func TestDiffPage(t *testing.T) {
	b := newStub()
	b.diff = stubDiff
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, "D")
	wantCalls(t, b, "diff claude-1")
	v := plain(m)
	if m.page != pageDiff || !strings.Contains(v, "Diff claude-1 since it started  2 files +2 -1") ||
		!strings.Contains(v, "+three (the agent)") || !strings.Contains(v, " b.go ") {
		t.Fatalf("diff page:\n%s", v)
	}
	press(m, "}")
	if p, l, _ := m.diff.At(); p != "b.go" || l.Text != "func B() int {" {
		t.Fatalf("} went to %q %+v", p, l)
	}
	// c ships: commit with a message, ctrl+r also pushes and opens a PR;
	// the diff is taken again.
	press(m, "c", "type:Fix it", "ctrl+r")
	if c := b.Calls(); !slices.Contains(c, `ship claude-1 "Fix it" push=true pr=true`) || c[len(c)-1] != "diff claude-1" {
		t.Fatalf("ship: %q", c)
	}
	if v := plain(m); !strings.Contains(v, "claude-1: committed abc1234 on agent/fix, pushed to origin/agent/fix; no pull request: gh is not installed") {
		t.Fatalf("shipped:\n%s", v)
	}
	// b diffs from another base.
	press(m, "b", "type:main", "enter")
	if c := b.Calls(); c[len(c)-1] != "diff claude-1 from main" || !strings.Contains(plain(m), "Diff claude-1 since main") {
		t.Fatalf("diff from main: %q\n%s", c, plain(m))
	}
	press(m, "esc")
	if m.page != pageSessions {
		t.Fatal("esc did not close the diff")
	}
	b.failed = errors.New("diff claude-1: no baseline")
	press(m, "D")
	if m.page != pageSessions || !strings.Contains(plain(m), "no baseline") {
		t.Fatalf("a failed diff:\n%s", plain(m))
	}
}

// a notes the line under the cursor (kept through SetNotes), x removes
// it; S sends the notes as one prompt — refused while the agent is busy,
// they wait and go once it reads idle; sent, they are done with.
func TestDiffNotes(t *testing.T) {
	b := newStub()
	b.diff = stubDiff
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, "D", "j", "j") // a.txt's "+three (the agent)"
	press(m, "a", "type:Why three?", "enter")
	press(m, "}", "j", "a", "type:Keep 1.", "enter") // b.go's removed "return 1"
	if ns := b.notesFor("claude-1"); len(ns) != 2 || ns[0].Line != 3 || ns[0].Text != "Why three?" || !ns[1].Old || ns[1].Line != 2 {
		t.Fatalf("notes kept %+v", ns)
	}
	if v := plain(m); !strings.Contains(v, "✎ 2 notes") || !strings.Contains(v, "✎ Keep 1.") {
		t.Fatalf("notes not shown:\n%s", v)
	}
	press(m, "x") // removes b.go's
	if ns := b.notesFor("claude-1"); len(ns) != 1 {
		t.Fatalf("after x: %+v", ns)
	}
	press(m, "j", "a", "type:Why 2?", "enter")

	want := review.Prompt(b.notesFor("claude-1"))
	b.mu.Lock()
	b.busy = true
	b.mu.Unlock()
	press(m, "S")
	if v := plain(m); !strings.Contains(v, "2 notes wait for claude-1") {
		t.Fatalf("busy:\n%s", v)
	}
	b.mu.Lock()
	b.busy = false
	b.mu.Unlock()
	b.set("claude-1", func(in *session.Info) { in.State = session.Idle; in.NeedsInput = false })
	m.onEvents(eventsMsg{events: []session.Event{{Kind: session.Changed, ID: "claude-1"}}})
	drain(m)
	calls := b.Calls()
	if n := strings.Count(strings.Join(calls, "\n"), "say claude-1"); n != 2 || !strings.Contains(calls[len(calls)-2], strconv.Quote(want)) {
		t.Fatalf("calls %q, want the prompt said twice (refused, then sent) as %q", calls, want)
	}
	if v := plain(m); !strings.Contains(v, "sent 2 notes to claude-1 as one prompt") || strings.Contains(v, "✎") {
		t.Fatalf("after sending:\n%s", v)
	}
	if ns := b.notesFor("claude-1"); len(ns) != 0 {
		t.Fatalf("notes kept after sending: %+v", ns)
	}
}

// d on a dead session given a worktree asks what becomes of it: kept,
// or removed; with uncommitted changes, removed only after a second yes.
func TestRemoveWorktree(t *testing.T) {
	b := newStub()
	b.set("build", func(in *session.Info) { in.Worktree = "/src/app-fix" })
	m := newModel(t, b, 120, 35, themes.Dark())
	m.list.Select("build")
	press(m, "d")
	if v := plain(m); !strings.Contains(v, "Its worktree /src/app-fix") {
		t.Fatalf("no question:\n%s", v)
	}
	press(m, "k")
	wantCalls(t, b, "remove build")

	b = newStub()
	b.set("build", func(in *session.Info) { in.Worktree = "/src/app-fix" })
	b.wtChanges = 3
	m = newModel(t, b, 120, 35, themes.Dark())
	m.list.Select("build")
	press(m, "d")
	if v := plain(m); !strings.Contains(v, "has 3 files with") || !strings.Contains(v, "uncommitted changes: removing it loses them") {
		t.Fatalf("no warning:\n%s", v)
	}
	press(m, "r")
	if v := plain(m); !strings.Contains(v, "Remove them with") {
		t.Fatalf("no second question:\n%s", v)
	}
	wantCalls(t, b)
	press(m, "y")
	wantCalls(t, b, "remove-worktree build true", "remove build")
}
