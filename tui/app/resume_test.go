package app

import (
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/themes"
)

// lostStub is the stub with three lost sessions besides, two of them
// Claude sessions in a conversation.
func lostStub() *stub {
	b := newStub()
	seen := t0.Add(-time.Hour)
	for _, l := range []struct{ id, convo string }{{"c1", "conv-1"}, {"sh", ""}, {"c2", "conv-2"}} {
		b.infos = append(b.infos, session.Info{ID: l.id, Kind: session.KindPty, Caps: ptyCaps, Agent: "claude",
			State: session.Dead, ExitCode: -1, Lost: true, LastSeen: seen, Rebooted: true, Conversation: l.convo,
			Started: seen.Add(-time.Hour), StateSince: seen, Cols: 80, Rows: 24})
	}
	return b
}

// A resumes the lost sessions the list shows, after a yes, one at a time:
// the next only once the gap after the last start has run out; Claude
// sessions in their conversations, others with their commands.
func TestResumeAllStaggered(t *testing.T) {
	b := lostStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	m.opt.ResumeGap = 7 * time.Second
	m.showLost() // Init's
	if !strings.Contains(m.status, "3 sessions were lost together") || !strings.Contains(m.status, "rebooted since") {
		t.Fatalf("status at start %q", m.status)
	}
	press(m, "A")
	if len(m.dialogs) != 1 {
		t.Fatal("A asked nothing")
	}
	text := m.resumeText(m.lostShown())
	for _, w := range []string{"one at a time, 7s apart", "In their conversations: c1, c2.", "With their commands: sh."} {
		if !strings.Contains(text, w) {
			t.Fatalf("the question does not say %q:\n%s", w, text)
		}
	}
	press(m, "y")
	wantCalls(t, b, "resume c1")
	if !m.resumeWait || !strings.Contains(m.status, "2 more, the next in 7s") {
		t.Fatalf("no gap armed after the first: wait %v, status %q", m.resumeWait, m.status)
	}
	// c1 runs again; a second A meanwhile queues nothing twice and
	// starts nothing.
	b.set("c1", func(in *session.Info) { in.Alive, in.Lost, in.State = true, false, session.Idle })
	m.reload()
	press(m, "A", "y")
	wantCalls(t, b, "resume c1")
	update(m, resumeNextMsg{})
	drain(m)
	wantCalls(t, b, "resume c1", "resume c2")
	update(m, resumeNextMsg{})
	drain(m)
	wantCalls(t, b, "resume c1", "resume c2", "restart sh")
	if m.resumeWait || len(m.resumeQ) != 0 || m.resuming != "" {
		t.Fatalf("queue not done: %q %q %v", m.resumeQ, m.resuming, m.resumeWait)
	}
}

// With the filter narrowing the list, A resumes only the lost sessions
// shown; with none shown it says so.
func TestResumeAllFiltered(t *testing.T) {
	b := lostStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, "/", "type:c2", "enter", "A", "y")
	wantCalls(t, b, "resume c2")
	press(m, "/", "type:shell", "enter", "A")
	if len(m.dialogs) != 0 || !strings.Contains(m.status, "no lost session shown") {
		t.Fatalf("A with no lost session shown: dialogs %d, status %q", len(m.dialogs), m.status)
	}
}

// [resume] lost = "all": the dashboard resumes them as it starts, without
// asking, still one at a time.
func TestResumeLostAtStart(t *testing.T) {
	b := lostStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	m.opt.ResumeLost, m.opt.ResumeGap = true, time.Second
	m.showLost() // Init's
	drain(m)
	wantCalls(t, b, "resume c1")
	if len(m.dialogs) != 0 || !m.resumeWait || !strings.Contains(m.status, "resumed c1; 2 more") {
		t.Fatalf("at start: dialogs %d, wait %v, status %q", len(m.dialogs), m.resumeWait, m.status)
	}
}

// The question says what the conversations' contexts re-send, and what
// caching them again costs: Claude's estimate, else the config's price.
func TestResumeAllCost(t *testing.T) {
	b := lostStub()
	b.set("c1", func(in *session.Info) { in.Resume = session.Resume{Tokens: 150000, Model: "claude-opus-4-6"} })
	b.set("c2", func(in *session.Info) { in.Resume = session.Resume{Tokens: 50000, USD: 0.5} })
	m := newModel(t, b, 120, 35, themes.Dark())
	m.opt.ResumeGap = time.Second
	text := m.resumeText(m.lostShown())
	if !strings.Contains(text, "c1 (150.0k), c2 (50.0k)") || !strings.Contains(text, "re-send 200.0k tokens of context.") {
		t.Fatalf("without prices: %q", text)
	}
	m.opt.Prices = config.Usage{Prices: map[string]config.Price{"claude-opus-4": {CacheWrite: 18.75}}}
	if text := m.resumeText(m.lostShown()); !strings.Contains(text, "re-send 200.0k tokens of context (about 3.31 to cache again).") {
		t.Fatalf("with prices: %q", text)
	}
}

// Quitting while resume all still has sessions queued says they stay
// lost, even with nothing running (else q would quit at once).
func TestQuitWithResumesQueued(t *testing.T) {
	b := lostStub()
	b.infos = b.infos[len(b.infos)-3:] // the three lost ones only: nothing runs
	m := newModel(t, b, 120, 35, themes.Dark())
	m.opt.ResumeGap = 7 * time.Second
	press(m, "A", "y")
	wantCalls(t, b, "resume c1")
	press(m, "q")
	if m.quitting || len(m.dialogs) != 1 || !strings.Contains(plain(m), "Quit heimdall-tui? 2 lost sessions are still") {
		t.Fatalf("q with 2 resumes queued: quitting=%v dialogs=%d\n%s", m.quitting, len(m.dialogs), plain(m))
	}
	press(m, "y")
	if !m.quitting || m.StopSessions() {
		t.Fatalf("y: quitting=%v stop=%v", m.quitting, m.StopSessions())
	}
}
