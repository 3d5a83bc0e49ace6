package app

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/layout"
)

// The zoom key and the :zoom command are one action: `g z z` and
// `g :zoom :zoom z` both end in the grid (the command used to record the
// zoom itself as the mode to return to, and went back to the split view).
func TestZoomKeyAndCommandAgree(t *testing.T) {
	keysOnly := newModel(t, newStub(), 120, 35, themes.Dark())
	press(keysOnly, "g", "z", "z")
	mixed := newModel(t, newStub(), 120, 35, themes.Dark())
	press(mixed, "g", ":", "type:zoom", "enter", ":", "type:zoom", "enter", "z")
	if keysOnly.mode != layout.ModeGrid || mixed.mode != keysOnly.mode {
		t.Fatalf("g z z → %v, g :zoom :zoom z → %v; want both grid", keysOnly.mode, mixed.mode)
	}
	// And :grid / g, :split / esc agree too.
	press(mixed, ":", "type:split", "enter")
	press(keysOnly, "g")
	if mixed.mode != layout.ModeSplit || keysOnly.mode != layout.ModeSplit {
		t.Fatalf(":split → %v, g from the grid → %v", mixed.mode, keysOnly.mode)
	}
}

// Every Backend call that may block runs in a Cmd: Update hands it to run
// and makes no call itself; the result comes back as a message.
func TestBackendCallsOffEventLoop(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	for _, step := range [][]string{
		{"x", "y"},                // kill
		{"i", "type:hi", "enter"}, // send
		{"r", "enter"},            // resize to the pane
		{"R", "y"},                // restart
		{"I"},                     // interrupt
		{"enter"},                 // attach: Endpoint
		{"G", "d"},                // remove
	} {
		if step[0] == "G" {
			press(m, "G") // the move tells the newly focused session it is viewed: a Cmd of its own
			step = step[1:]
		}
		for _, k := range step {
			if strings.HasPrefix(k, "type:") {
				press(m, k)
				continue
			}
			update(m, keys.Press(k))
		}
		if got := b.Calls(); len(got) != 0 {
			t.Fatalf("%q: Update called the backend: %q", step, got)
		}
		if len(held[m]) != 1 {
			t.Fatalf("%q: %d Cmds handed to run, want 1", step, len(held[m]))
		}
		drain(m)
		b.mu.Lock()
		b.calls = nil
		b.mu.Unlock()
		m.attaching, m.attachedID = "", ""
		press(m, "home")
	}
	if v := b.Violations(); len(v) > 0 {
		t.Fatalf("calls made inside Update: %q", v)
	}
}

// A result for a session that has gone meanwhile is dropped; a remove's
// result (its session goes by design) is not.
func TestResultForGoneSessionDropped(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	update(m, keys.Press("x"))
	update(m, keys.Press("y"))
	b.mu.Lock()
	b.infos = b.infos[1:] // claude-1 goes before the kill's result arrives
	b.failed = errors.New("kill claude-1: no such session")
	b.mu.Unlock()
	m.reload()
	drain(m)
	if m.status != "" {
		t.Fatalf("a result for a gone session was reported: %q", m.status)
	}
	press(m, "G", "d")
	if m.status != "removed build" {
		t.Fatalf("remove's result: %q", m.status)
	}
	// An Endpoint opened for a session that exited meanwhile is closed and
	// the reason reported.
	update(m, keys.Press("home"))
	update(m, keys.Press("enter"))
	b.set("shell-1", func(in *session.Info) { in.Alive, in.ExitCode = false, 1 })
	m.reload()
	drain(m)
	if m.attachedID != "" || !strings.Contains(m.status, "has exited") {
		t.Fatalf("attach to a session that exited meanwhile: attached %q, status %q", m.attachedID, m.status)
	}
}

// fakeStub is the stub with a session of another kind: no pty, a
// scripted transcript.
func fakeStub() *stub {
	b := newStub()
	b.infos = append(b.infos, session.Info{ID: "fake-1", Kind: "fake", Caps: session.CapTranscript,
		Agent: "fake", Owned: true, Alive: true, State: session.Streaming,
		Started: t0.Add(-time.Minute), StateSince: t0.Add(-5 * time.Second), LastOutput: t0.Add(-time.Second)})
	b.transcripts = map[string][]session.Entry{"fake-1": {
		{Seq: 1, Role: session.RoleUser, Text: "summarise the ledger"},
		{Seq: 2, Role: session.RoleTool, Text: "Read .planning/ledger.jsonl"},
	}}
	return b
}

// A session of a kind with a transcript and no terminal sits in the
// dashboard beside the pty sessions: listed with its state, its transcript
// in the pane (pulled again when it changes), attach and resize refused
// with the reason, kill works.
func TestFakeSessionKind(t *testing.T) {
	b := fakeStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	out := plain(m)
	if !strings.Contains(out, "fake-1") || !strings.Contains(lineWith(out, "fake-1"), "Streaming") {
		t.Fatalf("fake-1 not listed with its state:\n%s", out)
	}
	press(m, "/", "type:fake", "enter")
	if m.list.SelectedID() != "fake-1" {
		t.Fatalf("selected %q", m.list.SelectedID())
	}
	out = plain(m)
	if !strings.Contains(out, "you   summarise the ledger") || !strings.Contains(out, "tool  Read .planning/ledger.jsonl") {
		t.Fatalf("the pane does not show the transcript:\n%s", out)
	}
	if b.screens["fake-1"] != 0 {
		t.Fatal("a screen was pulled for a session without one")
	}
	// A Dirty event pulls the new entries (after the last one it has).
	b.mu.Lock()
	b.transcripts["fake-1"] = append(b.transcripts["fake-1"], session.Entry{Seq: 3, Role: session.RoleAssistant, Text: "The ledger has 3 entries."})
	b.mu.Unlock()
	update(m, eventsMsg{events: []session.Event{{Kind: session.Dirty, ID: "fake-1", Seq: 3}}})
	drain(m)
	if out := plain(m); !strings.Contains(out, "agent The ledger has 3 entries.") || strings.Count(out, "summarise the ledger") != 1 {
		t.Fatalf("new entry not shown once:\n%s", out)
	}

	// Attach and resize are refused, through the status line, with the reason.
	press(m, "enter")
	if want := "attach: fake-1 is a fake session: it has no terminal"; m.status != want || !m.statusErr {
		t.Fatalf("enter: status %q, want %q", m.status, want)
	}
	press(m, ":", "type:attach fake-1", "enter")
	if want := "attach: fake-1 is a fake session: it has no terminal"; m.status != want {
		t.Fatalf(":attach: status %q, want %q", m.status, want)
	}
	press(m, "r")
	if want := "resize: fake-1 is a fake session: it has no terminal"; m.status != want || len(m.dialogs) != 0 {
		t.Fatalf("r: status %q (dialogs %d), want %q", m.status, len(m.dialogs), want)
	}
	press(m, "R")
	if want := "restart: fake-1 is a fake session: it cannot be restarted"; m.status != want {
		t.Fatalf("R: status %q, want %q", m.status, want)
	}
	wantCalls(t, b)

	// The footer shows attach as unavailable: the same text, faint.
	m.status = ""
	foot := lastLine(m.Render())
	if !strings.Contains(ansi.Strip(foot), "enter attach") {
		t.Fatalf("footer: %q", ansi.Strip(foot))
	}
	if faint := m.st.Subtle.Render("enter"); !strings.Contains(foot, faint) {
		t.Fatalf("attach not shown as unavailable in the footer: %q", foot)
	}
	if faint := m.st.Subtle.Render("i"); strings.Contains(foot, faint) {
		t.Fatalf("send shown as unavailable for a live session: %q", foot)
	}

	// Sending (one message: no Enter appended) and killing work.
	press(m, "i", "type:go on", "enter")
	press(m, "x", "y")
	wantCalls(t, b, `write fake-1 "go on"`, "kill fake-1 force=false")
}

// A transcript pane keeps at most maxEntries entries, the newest.
func TestTranscriptBounded(t *testing.T) {
	b := fakeStub()
	var es []session.Entry
	for i := range maxEntries + 10 {
		es = append(es, session.Entry{Seq: uint64(i + 1), Role: session.RoleAssistant, Text: "x"})
	}
	b.transcripts["fake-1"] = es
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, "/", "type:fake", "enter")
	got := m.transcripts["fake-1"].entries
	if len(got) != maxEntries || got[len(got)-1].Seq != uint64(maxEntries+10) {
		t.Fatalf("kept %d entries, last %d", len(got), got[len(got)-1].Seq)
	}
	if !strings.Contains(m.transcriptView("fake-1", 40, 3), "x") || strings.Contains(m.transcriptView("nope", 40, 1), "x") {
		t.Fatal("transcriptView")
	}
}

func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

func lastLine(s string) string {
	ls := strings.Split(s, "\n")
	return ls[len(ls)-1]
}

// The event Cmd pulls the new entries of a shown transcript that became
// dirty, off the event loop, after the last entry the dashboard has;
// Update then uses them instead of pulling again.
func TestEventCmdPullsShownDirtyTranscripts(t *testing.T) {
	b := fakeStub()
	b.next = make(chan []session.Event, 1)
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, "/", "type:fake", "enter")
	if b.transcriptCalls != 1 || len(m.transcripts["fake-1"].entries) != 2 {
		t.Fatalf("showing fake-1: %d pulls, %d entries", b.transcriptCalls, len(m.transcripts["fake-1"].entries))
	}
	b.mu.Lock()
	b.transcripts["fake-1"] = append(b.transcripts["fake-1"], session.Entry{Seq: 3, Role: session.RoleAssistant, Text: "three"})
	b.mu.Unlock()
	cmd := m.waitEvents()
	b.next <- []session.Event{{Kind: session.Dirty, ID: "fake-1", Seq: 3}}
	msg, ok := cmd().(eventsMsg)
	if !ok || len(msg.entries["fake-1"]) != 1 || msg.entries["fake-1"][0].Seq != 3 || msg.screens["fake-1"] != nil {
		t.Fatalf("event Cmd returned %#v", msg)
	}
	update(m, msg)
	drain(m)
	if b.transcriptCalls != 2 {
		t.Fatalf("transcript pulls %d, want 2 (Update pulled what the Cmd had)", b.transcriptCalls)
	}
	if es := m.transcripts["fake-1"].entries; len(es) != 3 || es[2].Text != "three" {
		t.Fatalf("entries %v", es)
	}
}

// I interrupts the selected session's turn, through the Backend, and the
// status line says so; :interrupt NAME is the same action. A session
// without the capability is refused with the reason, before any call.
func TestInterrupt(t *testing.T) {
	b := newStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, "I")
	drain(m)
	press(m, ":", "type:interrupt shell-1", "enter")
	drain(m)
	wantCalls(t, b, "interrupt claude-1", "interrupt shell-1")
	if !strings.Contains(m.status, "interrupted shell-1") {
		t.Fatalf("status %q", m.status)
	}
	b = newStub()
	b.infos[0].Caps &^= session.CapInterrupt
	m = newModel(t, b, 120, 35, themes.Dark())
	press(m, "I")
	drain(m)
	wantCalls(t, b)
	if !strings.Contains(m.status, "interrupt: claude-1") {
		t.Fatalf("refusal %q", m.status)
	}
}

// x on a headless Claude session asks to close it, in its own words (not
// SIGTERM and a grace), and says it closed.
func TestCloseHeadless(t *testing.T) {
	b := newStub()
	b.infos[0].Kind, b.infos[0].Caps = session.KindHeadless, session.CapTranscript|session.CapInterrupt
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, "x")
	if s := plain(m); !strings.Contains(s, "Close claude-1?") || strings.Contains(s, "SIGTERM") {
		t.Fatalf("close dialog:\n%s", s)
	}
	press(m, "y")
	drain(m)
	wantCalls(t, b, "kill claude-1 force=false")
	if !strings.Contains(m.status, "closed claude-1") {
		t.Fatalf("status %q", m.status)
	}
}
