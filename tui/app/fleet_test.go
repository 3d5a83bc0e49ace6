package app

import (
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet/fleettest"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/themes"
)

// The seam, end to end: a session kind with no pty (fleettest's fake, a
// scripted transcript) added to a real fleet is listed by the dashboard
// with its state, shows its transcript in the pane, is refused attach with
// the reason, and is killed from the keyboard — with no branch for it in
// the fleet or the tui.
func TestFleetMemberOfAnotherKind(t *testing.T) {
	dir, err := os.MkdirTemp("", "f")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	f, err := fleet.New(fleet.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	k, err := fleettest.Add(f, "fake-1", fleettest.Options{Agent: "fake", Script: []fleettest.Step{
		fleettest.Entry(session.RoleUser, "summarise the ledger"),
		fleettest.State(session.ToolUse),
		fleettest.Entry(session.RoleTool, "Read .planning/ledger.jsonl"),
		fleettest.Entry(session.RoleAssistant, "The ledger has 3 entries."),
		fleettest.NeedsInput(session.Idle),
	}})
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(t, f, 120, 35, themes.Dark())
	settle := func(what string, ok func(out string) bool) string {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			out := plain(m)
			if ok(out) {
				return out
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 10 s:\n%s", what, out)
			}
			got := make(chan tea.Msg, 1)
			go func() { got <- m.waitEvents()() }()
			select {
			case msg := <-got:
				update(m, msg)
				drain(m)
			case <-time.After(time.Until(deadline)):
			}
		}
	}

	out := settle("listed, waiting for the user, transcript in the pane", func(out string) bool {
		return strings.Contains(out, "fake-1") && m.list.SelectedID() == "fake-1" &&
			strings.Contains(out, "agent The ledger has 3 entries.")
	})
	if in, _ := m.list.Find("fake-1"); in.State != session.Idle || !in.NeedsInput || in.Kind != fleettest.Kind {
		t.Fatalf("listed as %+v", in)
	}
	for _, want := range []string{"you   summarise the ledger", "tool  Read .planning/ledger.jsonl"} {
		if !strings.Contains(out, want) {
			t.Errorf("pane lacks %q:\n%s", want, out)
		}
	}

	press(m, "enter")
	if !m.statusErr || !strings.Contains(m.status, "fake-1") || !strings.Contains(m.status, "no terminal") {
		t.Fatalf("attach: status %q (error %v), want the reason", m.status, m.statusErr)
	}
	if m.attachedID != "" {
		t.Fatalf("attached to %q", m.attachedID)
	}

	press(m, "i", "type:go on", "enter")
	settle("the sent message in the transcript", func(out string) bool { return strings.Contains(out, "you   go on") })
	if sent := k.Sent(); len(sent) != 1 || sent[0] != "go on" {
		t.Fatalf("fake got %q", sent)
	}

	press(m, "x", "y")
	settle("killed: Dead", func(string) bool {
		in, ok := m.list.Find("fake-1")
		return ok && !in.Alive && in.State == session.Dead
	})
	if in, _ := m.list.Find("fake-1"); in.ExitCode != fleettest.CodeStop {
		t.Fatalf("exit code %d, want %d", in.ExitCode, fleettest.CodeStop)
	}
}
