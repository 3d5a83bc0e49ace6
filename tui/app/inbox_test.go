package app

import (
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
)

// The inbox as a user drives it with the stub backend: ! opens it with
// the newest item selected; the answer keys answer the selected item's
// session (y, N, a digit, t with words), off the event loop; the outcome
// is on the status line; selecting an item does not see it; enter goes to
// its session; the session list takes the same answer keys.
func TestInbox(t *testing.T) {
	b := newStub()
	b.set("claude-2", func(in *session.Info) { in.Reason = "Bash: rm -rf build" })
	b.set("shell-1", func(in *session.Info) { in.Done, in.Summary = true, "All tests pass." })
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, "!")
	out := plain(m)
	for _, want := range []string{"Inbox  3 waiting", "claude-2  Bash: rm -rf build", "build     exited with code 2", "shell-1   All tests pass.", "y allow · Y always · N deny"} {
		if !strings.Contains(out, want) {
			t.Fatalf("inbox lacks %q:\n%s", want, out)
		}
	}
	if m.inboxSel != "claude-2" {
		t.Fatalf("selected %q, want the newest item (claude-2)", m.inboxSel)
	}
	press(m, "y")
	press(m, "N")
	press(m, "3")
	press(m, "t", "type:use pnpm", "enter")
	wantCalls(t, b, `answer claude-2 allow 0 ""`, `answer claude-2 deny 0 ""`, `answer claude-2 option 3 ""`, `answer claude-2 text 0 "use pnpm"`)
	if !strings.Contains(plain(m), "answered claude-2: 1. Yes") {
		t.Fatalf("no outcome on the status line:\n%s", plain(m))
	}

	// Moving onto a done item does not see it; a Done item's session is
	// not asked, and an answer to it is refused before any call.
	press(m, "j", "j")
	if m.inboxSel != "shell-1" {
		t.Fatalf("selected %q after two downs", m.inboxSel)
	}
	press(m, "y")
	if got := plain(m); !strings.Contains(got, "answer: shell-1 is not waiting for an answer") {
		t.Fatalf("answer to a done item:\n%s", got)
	}
	for _, c := range b.Calls() {
		if strings.HasPrefix(c, "seen") {
			t.Fatalf("an item looked at in the inbox was seen: %q", b.Calls())
		}
	}
	press(m, "enter")
	if m.page != pageSessions || m.list.SelectedID() != "shell-1" {
		t.Fatalf("enter: page %v, selected %q", m.page, m.list.SelectedID())
	}

	// From the list: the selected session's prompt.
	m.list.Select("claude-2")
	press(m, "Y", "2")
	calls := b.Calls()
	if got := calls[len(calls)-2:]; got[0] != `answer claude-2 always 0 ""` || got[1] != `answer claude-2 option 2 ""` {
		t.Fatalf("answers from the list: %q", calls)
	}
	press(m, "!", "esc")
	if m.page != pageSessions {
		t.Fatal("esc did not close the inbox")
	}

	// A refusal (nothing typed) offers to attach; yes attaches.
	b.mu.Lock()
	b.failed = errors.New("claude-2 not answered: the screen shows no prompt to answer")
	b.mu.Unlock()
	m.list.Select("claude-2")
	press(m, "y")
	if out := plain(m); !strings.Contains(out, "Not answered") || !strings.Contains(out, "Attach to claude-2") {
		t.Fatalf("no offer to attach:\n%s", out)
	}
	b.mu.Lock()
	b.failed = nil
	b.mu.Unlock()
	press(m, "y")
	if calls := b.Calls(); calls[len(calls)-1] != "endpoint claude-2" {
		t.Fatalf("yes did not attach: %q", calls)
	}
}

// The focused session is told it is looked at, and told no longer when
// the focus moves, the inbox covers the list, or a session is attached.
func TestDeclareView(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, "j")
	views := func() map[string]bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return maps.Clone(b.views)
	}
	if v := views(); !v["shell-1"] || v["claude-1"] {
		t.Fatalf("after moving to shell-1: %v", v)
	}
	press(m, "!")
	if v := views(); v["shell-1"] {
		t.Fatalf("the inbox covers the list: %v", v)
	}
	press(m, "esc")
	if v := views(); !v["shell-1"] {
		t.Fatalf("back on the list: %v", v)
	}
}

// No alert for a session a user looks at in another client (its Info says
// Viewed: attached elsewhere, a page, another dashboard).
func TestNoAlertWhenViewedElsewhere(t *testing.T) {
	b := newStub()
	m := New(Options{Backend: b, Keys: keys.Default(), Bell: true, Now: func() time.Time { return t0 }})
	t.Cleanup(m.cancel)
	b.set("shell-1", func(in *session.Info) { in.NeedsInput, in.Viewed = true, true })
	m.list.SetItems(b.Sessions())
	if cmd := m.checkInbox(); cmd != nil {
		t.Fatal("alerted for a session viewed elsewhere")
	}
	b.set("shell-1", func(in *session.Info) { in.Viewed, in.StateSince = false, t0 }) // a new wait, nobody looking
	m.list.SetItems(b.Sessions())
	if !bellIn(m.checkInbox()) {
		t.Fatal("no alert once nobody looks")
	}
}
