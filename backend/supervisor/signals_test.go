package supervisor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// sendHook sends a Claude Code hook payload on a connection of its own,
// as `heimdall-tui hook` does.
func sendHook(t *testing.T, sock, payload string) {
	t.Helper()
	c := dial(t, sock)
	defer c.Close()
	if err := c.Send(frame.Hook, append([]byte{frame.HookClaude}, payload...)); err != nil {
		t.Fatal(err)
	}
}

// nextState reads frames until a STATE for which ok holds.
func nextState(t *testing.T, c *frame.Client, what string, ok func(frame.StateInfo) bool) frame.StateInfo {
	t.Helper()
	c.Conn().SetReadDeadline(time.Now().Add(10 * time.Second))
	defer c.Conn().SetReadDeadline(time.Time{})
	for {
		f, err := c.Next()
		if err != nil {
			t.Fatalf("waiting for a STATE with %s: %v", what, err)
		}
		if f.Type != frame.StateEvent {
			continue
		}
		var si frame.StateInfo
		if err := si.UnmarshalBinary(f.Payload); err != nil {
			t.Fatal(err)
		}
		if ok(si) {
			return si
		}
	}
}

// Hooks reach the session over HOOK frames and their verdict is pushed
// to a WATCH_STATE connection at once: busy with the tool, needs input
// with the command, Done after Stop until SEEN; SCREEN_RESP carries the
// same and the conversation id, which OnConversation hears of.
func TestHookFrames(t *testing.T) {
	convo := make(chan string, 4)
	s := startServed(t, Config{Argv: []string{"sh", "-c", "exec sleep 60"}, OnConversation: func(id string) { convo <- id }})
	w := dial(t, s.sock)
	if err := w.Send(frame.WatchState, nil); err != nil {
		t.Fatal(err)
	}
	nextState(t, w, "the first, Idle", func(si frame.StateInfo) bool { return si.State == "Idle" })

	sendHook(t, s.sock, `{"hook_event_name":"SessionStart","source":"startup","session_id":"conv-1"}`)
	select {
	case id := <-convo:
		if id != "conv-1" {
			t.Fatalf("conversation %q", id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OnConversation not called")
	}
	sendHook(t, s.sock, `{"hook_event_name":"PreToolUse","session_id":"conv-1","tool_name":"Bash","tool_input":{"command":"make test"}}`)
	nextState(t, w, "ToolUse Bash", func(si frame.StateInfo) bool { return si.State == "ToolUse" && si.Tool == "Bash" })
	sendHook(t, s.sock, `{"hook_event_name":"PermissionRequest","session_id":"conv-1","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}`)
	si := nextState(t, w, "needs input", func(si frame.StateInfo) bool { return si.NeedsInput })
	if si.Reason != "Bash: rm -rf build" || si.Conversation != "conv-1" {
		t.Fatalf("STATE %+v", si)
	}
	sendHook(t, s.sock, `{"hook_event_name":"Stop","session_id":"conv-1"}`)
	nextState(t, w, "done", func(si frame.StateInfo) bool { return si.Done && si.State == "Idle" && !si.NeedsInput })
	c := dial(t, s.sock)
	if sc, err := c.Screen(false); err != nil || !sc.Done || sc.Conversation != "conv-1" {
		t.Fatalf("SCREEN_RESP %+v %v", sc.AgentState, err)
	}
	if err := c.Send(frame.Seen, nil); err != nil {
		t.Fatal(err)
	}
	nextState(t, w, "not done after SEEN", func(si frame.StateInfo) bool { return !si.Done })
	sendHook(t, s.sock, `{"hook_event_name":"StopFailure","error":"rate_limit","error_details":"resets 3pm"}`)
	si = nextState(t, w, "an error", func(si frame.StateInfo) bool { return si.Error != "" })
	if si.Error != "rate_limit" || si.ErrorDetails != "resets 3pm" || si.Done {
		t.Fatalf("STATE %+v", si)
	}
	// Bad HOOK payloads are ignored; the connection and session go on.
	for _, p := range [][]byte{nil, {0x09, '{', '}'}, append([]byte{frame.HookClaude}, "not json"...)} {
		if err := c.Send(frame.Hook, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Status(); err != nil {
		t.Fatalf("STATUS after bad HOOKs: %v", err)
	}
}

// Hooks are separate processes, each on a connection of its own, and the
// server serves connections concurrently: a report is ordered by when its
// connection was accepted, not by when it is read. Here a PreToolUse whose
// hook connected first is read after the PermissionRequest that followed
// it (as a busy supervisor may schedule them): the question, with its
// reason, stands.
func TestHooksKeepTheirConnectionsOrder(t *testing.T) {
	s := startServed(t, Config{Argv: []string{"sh", "-c", "exec sleep 60"}})
	first := dial(t, s.sock)
	if _, err := first.Status(); err != nil { // accepted and served
		t.Fatal(err)
	}
	// first's read loop has handled a frame: a HOOK it sends now would
	// count from when it is read. A fresh connection made before the
	// question's is the hook that came first.
	pre := dial(t, s.sock)
	time.Sleep(time.Millisecond) // accepted strictly before the next
	sendHook(t, s.sock, `{"hook_event_name":"PermissionRequest","session_id":"c","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}`)
	w := dial(t, s.sock)
	if err := w.Send(frame.WatchState, nil); err != nil {
		t.Fatal(err)
	}
	nextState(t, w, "needs input", func(si frame.StateInfo) bool { return si.NeedsInput })
	if err := pre.Send(frame.Hook, append([]byte{frame.HookClaude}, `{"hook_event_name":"PreToolUse","session_id":"c","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}`...)); err != nil {
		t.Fatal(err)
	}
	if _, err := pre.Status(); err != nil { // after the HOOK on the same connection: it was handled
		t.Fatal(err)
	}
	sc, err := first.Screen(false)
	if err != nil || !sc.NeedsInput || sc.Reason != "Bash: rm -rf build" || sc.Tool != "" {
		t.Fatalf("after a late PreToolUse: %+v %v; want the question, with its reason", sc.AgentState, err)
	}
	// A HOOK after other frames on its connection counts from when it is
	// read: it is news.
	if err := first.Send(frame.Hook, append([]byte{frame.HookClaude}, `{"hook_event_name":"Stop","session_id":"c"}`...)); err != nil {
		t.Fatal(err)
	}
	nextState(t, w, "done", func(si frame.StateInfo) bool { return si.Done && !si.NeedsInput })
}

// A WATCH_STATE client that never reads holds up neither the session nor
// its other clients: it only ever has the latest state waiting.
func TestWatchStateSlowClient(t *testing.T) {
	s := startServed(t, Config{Argv: []string{"sh", "-c", "exec sleep 60"}})
	lazy := dial(t, s.sock)
	if err := lazy.Send(frame.WatchState, nil); err != nil {
		t.Fatal(err)
	}
	w := dial(t, s.sock)
	if err := w.Send(frame.WatchState, nil); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2000; i++ {
		ev := `{"hook_event_name":"PreToolUse","tool_name":"T` + string(rune('a'+i%26)) + `"}`
		if i%2 == 1 {
			ev = `{"hook_event_name":"Stop"}`
		}
		sendHook(t, s.sock, ev)
	}
	sendHook(t, s.sock, `{"hook_event_name":"PreToolUse","tool_name":"Last"}`)
	nextState(t, w, "the last hook", func(si frame.StateInfo) bool { return si.Tool == "Last" })
	if _, err := dial(t, s.sock).Status(); err != nil {
		t.Fatal(err)
	}
}

// A bell (or a notification sequence) from the program wants attention
// until a user has seen the session.
func TestBellWantsAttention(t *testing.T) {
	g := newGate(t)
	s := startServed(t, Config{Argv: []string{"sh", "-c", g.Wait() + `; printf 'done\a'; exec sleep 60`}})
	w := dial(t, s.sock)
	if err := w.Send(frame.WatchState, nil); err != nil {
		t.Fatal(err)
	}
	if si := nextState(t, w, "the first", func(frame.StateInfo) bool { return true }); si.Attention {
		t.Fatalf("attention before the bell: %+v", si)
	}
	g.Open(t)
	nextState(t, w, "attention after the bell", func(si frame.StateInfo) bool { return si.Attention })
	if sc, err := dial(t, s.sock).Screen(false); err != nil || !sc.Attention {
		t.Fatalf("SCREEN_RESP attention %v %v", sc.Attention, err)
	}
	c := dial(t, s.sock)
	c.Send(frame.Seen, nil)
	nextState(t, w, "no attention once seen", func(si frame.StateInfo) bool { return !si.Attention })
}

// VIEW: a client that shows the session to a user makes STATE say viewed
// until it says it no longer does or goes away; an attached terminal does
// too. A repeated VIEW 1 counts once; a malformed one is ignored.
func TestViewed(t *testing.T) {
	s := startServed(t, Config{Argv: []string{"sh", "-c", "exec sleep 60"}})
	w := dial(t, s.sock)
	if err := w.Send(frame.WatchState, nil); err != nil {
		t.Fatal(err)
	}
	nextState(t, w, "not viewed", func(si frame.StateInfo) bool { return !si.Viewed })
	a, b := dial(t, s.sock), dial(t, s.sock)
	a.Send(frame.View, []byte{1})
	a.Send(frame.View, []byte{1})
	a.Send(frame.View, []byte{7})
	nextState(t, w, "viewed", func(si frame.StateInfo) bool { return si.Viewed })
	b.Send(frame.View, []byte{1})
	if _, err := b.Status(); err != nil { // b counted before a leaves: viewed throughout
		t.Fatal(err)
	}
	a.Send(frame.View, []byte{0})
	if _, err := a.Status(); err != nil {
		t.Fatal(err)
	}
	b.Close() // its VIEW ends with it
	nextState(t, w, "not viewed once both have gone", func(si frame.StateInfo) bool { return !si.Viewed })
	at := dial(t, s.sock)
	at.Send(frame.Attach, nil)
	nextState(t, w, "viewed while a terminal is attached", func(si frame.StateInfo) bool { return si.Viewed })
	at.Close()
	nextState(t, w, "not viewed once it detached", func(si frame.StateInfo) bool { return !si.Viewed })
}

// SAY types a prompt whole once the session waits at its prompt: as one
// bracketed paste when the program asked for it, then Enter; refused
// (busy) while someone is typing into it.
func TestSay(t *testing.T) {
	out := filepath.Join(t.TempDir(), "typed")
	s := startServed(t, Config{Argv: []string{"sh", "-c", "stty raw -echo; printf '\\033[?2004hREADY'; exec cat > " + out}})
	c := dial(t, s.sock)
	// Busy while READY is drawn (Active), then said once it is Idle.
	proctest.WaitFor(t, "the prompt said once idle", 10*time.Second, func() bool {
		r, err := c.Say(frame.SayRequest{Request: 3, Text: "two\nlines"})
		if err != nil || (!r.OK && !r.Busy) || r.Request != 3 {
			t.Fatalf("say: %+v %v", r, err)
		}
		return r.OK
	})
	want := "\x1b[200~two\nlines\x1b[201~\r"
	proctest.WaitFor(t, "the prompt typed", 10*time.Second, func() bool {
		b, _ := os.ReadFile(out)
		return string(b) == want
	})
	if err := c.Input([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if r, err := c.Say(frame.SayRequest{Text: "more"}); err != nil || r.OK || !r.Busy || !strings.Contains(r.Error, "someone is typing") {
		t.Fatalf("say while typing: %+v %v", r, err)
	}
	if r, err := c.Say(frame.SayRequest{Text: "  "}); err != nil || r.OK || r.Busy {
		t.Fatalf("say nothing: %+v %v", r, err)
	}
}
