package fleet_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/blemeesd"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/headless"
	"github.com/heimdall-tui/heimdall-tui/backend/headless/headlesstest"
	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/session/sessiontest"
	"github.com/heimdall-tui/heimdall-tui/wire/blemees/blemeestest"
)

// standaloneDaemon serves a blemeesd (the fake claude) on a socket in a
// short temp dir; it returns the daemon, its socket and a project dir.
func standaloneDaemon(t *testing.T) (*blemeesd.Daemon, string, string) {
	t.Helper()
	dir := proctest.ShortDir(t)
	t.Setenv("HOME", dir)
	cfg := blemeesd.Default()
	cfg.SocketPath = filepath.Join(dir, "b.sock")
	cfg.ClaudeBin = headlesstest.FakeClaude(t)
	d := blemeesd.New(cfg, nil, nil)
	if err := d.Listen(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- d.Serve() }()
	t.Cleanup(func() {
		d.Shutdown()
		<-served
	})
	return d, cfg.SocketPath, dir
}

func openOn(t *testing.T, c *blemeestest.Conn, sid, dir string) {
	t.Helper()
	f := c.Request(map[string]any{"type": "blemeesd.open", "id": "o-" + sid, "session_id": sid, "cwd": dir, "model": "opus"}, "blemeesd.opened")
	if f.Type() != "blemeesd.opened" {
		t.Fatalf("open: %v", f)
	}
	c.Until("claude.system", sid)
}

func turn(c *blemeestest.Conn, sid, text string) {
	c.Send(map[string]any{"type": "claude.user", "session_id": sid, "message": map[string]any{"role": "user", "content": text}})
}

// A fleet following a standalone daemon lists the session a socket client
// opened and turns, with the transcript (replayed, then live) and state
// from the stream; sending, closing and interrupting are refused with the
// reason; a live turn's usage is reported; the owner closing the session
// is Exited; the daemon going away removes the members.
func TestBlemeesFollow(t *testing.T) {
	d, sock, dir := standaloneDaemon(t)
	owner := blemeestest.Connect(t, sock)
	openOn(t, owner, "0123456789abcdef", dir)
	turn(owner, "0123456789abcdef", "hello")
	owner.Until("claude.result", "0123456789abcdef")

	f := openFleet(t)
	r := sessiontest.Record(t, f)
	turns := make(chan headless.Usage, 8)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := fleet.FollowBlemees(ctx, f, sock, fleet.BlemeesOptions{Dirs: []string{dir}, Poll: 50 * time.Millisecond,
		OnTurn: func(id string, u headless.Usage) { turns <- u }})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	id := "claude-01234567"
	r.Wait(t, session.Added, id, 0)
	waitTranscript(t, f, id, "system: claude started · opus\nassistant: echo: hello\n")
	in := infoOf(t, f, id)
	if in.Kind != session.KindHeadless || in.Caps != session.CapTranscript || in.Owned || in.Dir != dir || in.State != session.Idle || !in.Alive {
		t.Fatalf("info %+v", in)
	}
	const why = ": a session followed on a standalone blemeesd is driven by its owner only (a blemees/1 watcher cannot send, interrupt or close it)"
	wantRefused(t, f.Interrupt(id), "interrupt "+id+why)
	wantRefused(t, f.Send(id, session.Input{Data: []byte("hi\r")}), "write to "+id+": send "+id+why)
	if err := f.Kill(id, false); err == nil || !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("kill: %v", err)
	}
	select {
	case u := <-turns:
		t.Fatalf("a replayed turn reported: %+v", u)
	default:
	}

	// A live turn: streaming state, then the tool call and answer.
	turn(owner, "0123456789abcdef", "slow:1500")
	proctest.WaitFor(t, "streaming", 10*time.Second, func() bool { return infoOf(t, f, id).State == session.Streaming })
	owner.Until("claude.result", "0123456789abcdef")
	turn(owner, "0123456789abcdef", "tool")
	waitTranscript(t, f, id, "tool: Bash {\"command\":\"ls\"}\ntool: → a.txt\nassistant: listed\n")
	proctest.WaitFor(t, "Idle after the turn", 10*time.Second, func() bool { return infoOf(t, f, id).State == session.Idle })
	select {
	case u := <-turns:
		if u.Turns < 2 || u.Total["input_tokens"] == 0 {
			t.Fatalf("usage %+v", u)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no OnTurn for a live turn")
	}

	// The owner closes it: Exited.
	if fr := owner.Request(map[string]any{"type": "blemeesd.close", "id": "c1", "session_id": "0123456789abcdef"}, "blemeesd.closed"); fr.Type() != "blemeesd.closed" {
		t.Fatalf("close: %v", fr)
	}
	r.Wait(t, session.Exited, id, 0)

	// Another session; then the daemon goes away: removed.
	openOn(t, owner, "fedcba9876543210", dir)
	id2 := "claude-fedcba98"
	r.Wait(t, session.Added, id2, 0)
	d.Shutdown()
	r.Wait(t, session.Removed, id2, 0)
	select {
	case <-b.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the follower did not stop when the daemon went away")
	}
}
