package inbox

import (
	"reflect"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

func TestItems(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	infos := []session.Info{
		{ID: "busy", Alive: true, State: session.Thinking, StateSince: at(9)},
		{ID: "perm", Alive: true, NeedsInput: true, Reason: "Bash: rm -rf build", StateSince: at(3), Done: true},
		{ID: "q", Alive: true, NeedsInput: true, StateSince: at(5)},
		{ID: "limit", Alive: true, Error: "rate_limit: resets 3pm", StateSince: at(1)},
		{ID: "crash", Alive: false, ExitCode: 2, StateSince: at(7)},
		{ID: "clean", Alive: false, ExitCode: 0, StateSince: at(8)},
		{ID: "fin", Alive: true, Done: true, Summary: "All tests pass.", StateSince: at(5)},
	}
	var got []string
	for _, it := range Items(infos) {
		got = append(got, it.Session+" "+string(it.Kind)+" "+it.Reason)
	}
	want := []string{"crash error exited with code 2", "fin done All tests pass.", "q input waiting for input",
		"perm input Bash: rm -rf build", "limit error rate_limit: resets 3pm"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("items\n%q\nwant\n%q", got, want)
	}
	a, _ := Of(infos[1])
	b := a
	if a.Key() != b.Key() {
		t.Fatal("the same item has two keys")
	}
	b.Reason = "Claude needs your permission to use Bash"
	if a.Key() != b.Key() {
		t.Fatal("a wait whose reason was refined is a new item")
	}
	b.Since = at(4)
	if a.Key() == b.Key() {
		t.Fatal("a new wait has the old one's key")
	}
	if g := a.Age(at(3 + 125)); g != "2m" {
		t.Fatalf("age %s", g)
	}
}

// An item says whether its session has a terminal to open: an ACP
// agent's has a transcript, and is answered from the item.
func TestItemTerminal(t *testing.T) {
	pty, _ := Of(session.Info{ID: "c1", Kind: session.KindPty, Caps: session.CapScreen | session.CapAttach, Alive: true, NeedsInput: true})
	acp, _ := Of(session.Info{ID: "a1", Kind: session.KindACP, Caps: session.CapTranscript | session.CapAnswer, Alive: true, NeedsInput: true})
	if !pty.Terminal || acp.Terminal {
		t.Fatalf("terminal: pty %v, acp %v", pty.Terminal, acp.Terminal)
	}
}

func TestWait(t *testing.T) {
	start := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	old := session.Info{Alive: true, Done: true, StateSince: start.Add(-time.Minute)}
	fresh := session.Info{Alive: true, Done: true, StateSince: start.Add(time.Second)}
	for _, c := range []struct {
		w    Wait
		in   session.Info
		want bool
	}{
		{ForDone, old, false}, {ForDone, fresh, true}, {ForDone, session.Info{}, true},
		{ForInput, session.Info{Alive: true, NeedsInput: true}, true}, {ForInput, old, false},
		{ForIdle, session.Info{Alive: true, NeedsInput: true}, false}, {ForIdle, old, true},
		{ForIdle, session.Info{Alive: true, State: session.ToolUse}, false},
	} {
		if got := c.w.Holds(c.in, start); got != c.want {
			t.Errorf("%s %+v: %v", c.w, c.in, got)
		}
	}
	if _, err := ParseWait("finished"); err == nil {
		t.Fatal("an unknown condition parsed")
	}
}
