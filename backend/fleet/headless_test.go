package fleet_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/headless"
	"github.com/heimdall-tui/heimdall-tui/backend/headless/headlesstest"
	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/session/sessiontest"
)

// newHeadless is a fleet with a headless Manager running the fake claude.
func newHeadless(t *testing.T, onTurn func(string, headless.Usage)) (*fleet.Fleet, *headless.Manager, *fleet.Headless, string) {
	t.Helper()
	f := openFleet(t)
	home := t.TempDir()
	m := headless.NewManager(headless.Config{Claude: headlesstest.FakeClaude(t), Home: home, InterruptGrace: 200 * time.Millisecond})
	t.Cleanup(func() { m.Shutdown(0, 5*time.Second) })
	return f, m, fleet.NewHeadless(f, m, onTurn), home
}

// roles is a transcript as "role: text" lines.
func roles(es []session.Entry) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString(string(e.Role) + ": " + e.Text + "\n")
	}
	return b.String()
}

// interruptSlowTurn sends the fake claude a slow turn, waits for it to
// stream (the answer's tail in the title), interrupts it and waits for the
// notice and Idle.
func interruptSlowTurn(t *testing.T, f *fleet.Fleet, id string) {
	t.Helper()
	if err := f.Send(id, session.Input{Data: []byte("slow:5000")}); err != nil {
		t.Fatal(err)
	}
	proctest.WaitFor(t, "streaming", 10*time.Second, func() bool {
		in := infoOf(t, f, id)
		return in.State == session.Streaming && strings.Contains(in.Title, "slow")
	})
	if err := f.Interrupt(id); err != nil {
		t.Fatal(err)
	}
	waitTranscript(t, f, id, "user: slow:5000\nsystem: interrupted\n")
	proctest.WaitFor(t, "Idle after the interrupt", 10*time.Second, func() bool { return infoOf(t, f, id).State == session.Idle })
}

func waitTranscript(t *testing.T, f *fleet.Fleet, id, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(roles(f.Transcript(id, 0)), want) {
		if time.Now().After(deadline) {
			t.Fatalf("transcript of %s lacks\n%s\nit is\n%s\ninfo %+v", id, want, roles(f.Transcript(id, 0)), infoOf(t, f, id))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A headless session opened from the dashboard: listed with its kind and
// caps, a turn's user message, tool call and result, answer in the
// transcript, the state back to Idle, usage reported after the turn;
// attach refused with the reason; interrupt; Kill closes it (Dead).
func TestHeadlessMember(t *testing.T) {
	// Made before the fleet and the manager, so it is removed after the
	// fake claude writing into it has stopped (cleanups run last first).
	claudeLog := filepath.Join(t.TempDir(), "claude.log")
	turns := make(chan headless.Usage, 8)
	f, _, h, home := newHeadless(t, func(id string, u headless.Usage) { turns <- u })
	r := sessiontest.Record(t, f)
	id, err := h.Open(fleet.HeadlessSpec{ID: "h-1", Dir: home, Model: "opus"})
	if err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Added, id, 0)
	waitTranscript(t, f, id, "system: claude started · opus\n")
	in := infoOf(t, f, id)
	if in.Kind != session.KindHeadless || in.Caps != session.CapTranscript|session.CapInterrupt|session.CapRestart || !in.Alive ||
		in.Agent != "claude" || in.Dir != home || in.State != session.Idle || !strings.HasPrefix(in.Title, "opus") || !in.Owned {
		t.Fatalf("info %+v", in)
	}
	_, err = f.Endpoint(id)
	wantRefused(t, err, "attach h-1: a headless Claude session has no terminal")
	wantRefused(t, f.Resize(id, 80, 24), "resize h-1: a headless Claude session has no terminal")

	if err := f.Send(id, session.Input{Data: []byte("tool\r")}); err != nil {
		t.Fatal(err)
	}
	waitTranscript(t, f, id, "user: tool\ntool: Bash {\"command\":\"ls\"}\ntool: → a.txt\nassistant: listed\n")
	select {
	case u := <-turns:
		if u.Turns != 1 || u.Total["input_tokens"] != 10 || u.Total["output_tokens"] != 5 {
			t.Fatalf("usage %+v", u)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no OnTurn")
	}
	proctest.WaitFor(t, "Idle after the turn", 10*time.Second, func() bool { return infoOf(t, f, id).State == session.Idle })

	// A slow turn: Streaming with the answer's tail in the title, then
	// interrupted.
	interruptSlowTurn(t, f, id)

	if err := f.Kill(id, false); err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Exited, id, 0)
	if in := infoOf(t, f, id); in.Alive || in.State != session.Dead {
		t.Fatalf("after Kill: %+v", in)
	}

	// Restart resumes the conversation: claude started again with
	// --resume and the session's id, under the same fleet ID.
	t.Setenv("FAKE_CLAUDE_LOG", claudeLog)
	if err := f.Restart(id); err != nil {
		t.Fatal(err)
	}
	proctest.WaitFor(t, "the resumed session", 10*time.Second, func() bool {
		in := infoOf(t, f, id)
		return in.Alive && in.State == session.Idle
	})
	if err := f.Send(id, session.Input{Data: []byte("again\r")}); err != nil {
		t.Fatal(err)
	}
	waitTranscript(t, f, id, "assistant: echo: again\n")
	log, _ := os.ReadFile(os.Getenv("FAKE_CLAUDE_LOG"))
	if !strings.Contains(string(log), `"--resume"`) {
		t.Fatalf("claude's argv after the restart: %s\n%s", log, roles(f.Transcript(id, 0)))
	}
}

// A session a socket client opens on the same Manager shows up in the
// fleet, watched: its events make the transcript; a crash is a Failed
// report; when its owner closes it the member exits.
func TestHeadlessWatched(t *testing.T) {
	f, m, _, home := newHeadless(t, nil)
	r := sessiontest.Record(t, f)
	k := &chanSink{}
	s, err := m.Open(headless.Spec{ID: "0123456789abcdef", Dir: home}, headless.Attach{Sink: k, LastSeen: -1})
	if err != nil {
		t.Fatal(err)
	}
	id := "claude-01234567"
	r.Wait(t, session.Added, id, 0)
	msg := []byte(`{"role":"user","content":"hello"}`)
	if err := s.Send(k, msg); err != nil {
		t.Fatal(err)
	}
	waitTranscript(t, f, id, "assistant: echo: hello\n")
	if in := infoOf(t, f, id); in.Owned {
		t.Fatalf("a watched session is owned: %+v", in)
	}
	if err := s.Send(k, []byte(`{"role":"user","content":"crash"}`)); err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Failed, id, 0)
	waitTranscript(t, f, id, "system: claude crashed: ")
	if err := s.Close(k, false); err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Exited, id, 0)
}

// Closing the fleet closes the sessions the dashboard owns and leaves the
// ones it watches to their owners.
func TestHeadlessHangup(t *testing.T) {
	f, m, h, home := newHeadless(t, nil)
	id, err := h.Open(fleet.HeadlessSpec{Dir: home})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(id, "claude-") {
		t.Fatalf("id %q", id)
	}
	k := &chanSink{}
	if _, err := m.Open(headless.Spec{ID: "other", Dir: home}, headless.Attach{Sink: k, LastSeen: -1}); err != nil {
		t.Fatal(err)
	}
	proctest.WaitFor(t, "both listed", 10*time.Second, func() bool { return len(f.Sessions()) == 2 })
	f.Close()
	if ss := m.Sessions(); len(ss) != 1 || ss[0].ID() != "other" {
		t.Fatalf("after the fleet closed, the manager has %d sessions", len(ss))
	}
}

type chanSink struct{}

func (*chanSink) Deliver(headless.Event) {}
func (*chanSink) Taken(string, int)      {}
