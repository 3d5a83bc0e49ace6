package fleet_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
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
	sock := filepath.Join(dir, "b.sock")
	return serveDaemon(t, sock), sock, dir
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
	b, err := fleet.FollowBlemees(ctx, f, sock, fleet.BlemeesOptions{Redial: time.Millisecond,
		OnTurn: func(id string, u headless.Usage) { turns <- u }})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	id := "claude-01234567"
	r.Wait(t, session.Added, id, 0)
	waitTranscript(t, f, id, "system: claude started · opus\nassistant: echo: hello\n")
	in := infoOf(t, f, id)
	if in.Kind != session.KindHeadless || in.Caps != session.CapTranscript|session.CapOutlive || in.Owned || in.Dir != dir || in.State != session.Idle || !in.Alive {
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
		// The session's tokens, counted today: its totals (the second
		// live turn's report has them all).
		u = <-turns
		proctest.WaitFor(t, "the session's tokens", 10*time.Second, func() bool {
			us := infoOf(t, f, id).Usage
			return len(us) == 1 && us[0].Input == u.Total["input_tokens"]
		})
		got := infoOf(t, f, id).Usage[0]
		if got.Day != time.Now().Format(time.DateOnly) || got.Output != u.Total["output_tokens"] || got.CacheRead != u.Total["cache_read_input_tokens"] {
			t.Fatalf("usage row %+v, totals %v", got, u.Total)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no OnTurn for a live turn")
	}

	// The owner closes it: Exited.
	if fr := owner.Request(map[string]any{"type": "blemeesd.close", "id": "c1", "session_id": "0123456789abcdef"}, "blemeesd.closed"); fr.Type() != "blemeesd.closed" {
		t.Fatalf("close: %v", fr)
	}
	r.Wait(t, session.Exited, id, 0)

	// Another session; then the daemon goes away: removed. A daemon
	// that answers on the socket again is followed again.
	openOn(t, owner, "fedcba9876543210", dir)
	id2 := "claude-fedcba98"
	r.Wait(t, session.Added, id2, 0)
	d.Shutdown()
	r.Wait(t, session.Removed, id2, 0)
	serveDaemon(t, sock)
	owner2 := blemeestest.Connect(t, sock)
	openOn(t, owner2, "aaaabbbbccccdddd", dir)
	r.Wait(t, session.Added, "claude-aaaabbbb", 0)
	b.Close()
	select {
	case <-b.Done():
	default:
		t.Fatal("Done not closed after Close")
	}
	r.Wait(t, session.Removed, "claude-aaaabbbb", 0)
}

// serveDaemon serves a daemon running the fake claude on sock until the
// test ends (a second one on the same sock: systemd restarting blemeesd).
func serveDaemon(t *testing.T, sock string) *blemeesd.Daemon {
	t.Helper()
	return serveDaemonOf(t, sock, headlesstest.FakeClaude(t))
}

// serveDaemonOf is serveDaemon running claude as its claude.
func serveDaemonOf(t *testing.T, sock, claude string) *blemeesd.Daemon {
	t.Helper()
	cfg := blemeesd.Default()
	cfg.SocketPath = sock
	cfg.ClaudeBin = claude
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
	return d
}

// A "claude" that does not speak stream-json (not claude at all, or one
// too old) leaves the session in error with what it wrote, not Thinking
// forever: the daemon says so (an internal error on the session) and the
// dashboard shows it.
func TestBlemeesNotClaude(t *testing.T) {
	dir := proctest.ShortDir(t)
	t.Setenv("HOME", dir)
	notClaude := filepath.Join(dir, "claude")
	if err := os.WriteFile(notClaude, []byte("#!/bin/sh\necho 'Usage: claude [options]'\nexec cat >/dev/null\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "b.sock")
	serveDaemonOf(t, sock, notClaude)
	f := openFleet(t)
	r := sessiontest.Record(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := fleet.FollowBlemees(ctx, f, sock, fleet.BlemeesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	id, err := b.Open(fleet.HeadlessSpec{ID: "h-1", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Added, id, 0)
	if err := f.Send(id, session.Input{Data: []byte("hello\r")}); err != nil {
		t.Fatal(err)
	}
	waitTranscript(t, f, id, `system: claude's stdout is not JSON: "Usage: claude [options]"`)
	proctest.WaitFor(t, "the session in error", 10*time.Second, func() bool {
		in := infoOf(t, f, id)
		return in.State == session.Idle && in.Error == "claude's output is not JSON"
	})
}

// A session the dashboard opens through the follower (the spawn dialog,
// when a standalone daemon runs) is owned by its connection: turns,
// interrupt, close (Kill) and restart (a resume) work as with the
// dashboard's own daemon; its user turns are shown once (entered when
// sent, claude's echo matched); another client's session anywhere is told
// of; another client taking it over leaves it watched, refusing to drive
// it with the reason; the fleet closing leaves the sessions it owns to the
// daemon; a dashboard following it then shows the whole transcript, the
// user's turns too.
func TestBlemeesOpen(t *testing.T) {
	// Made before the daemon, so it is removed after the daemon and the
	// fake claude writing into it have stopped (cleanups run last first).
	claudeLog := filepath.Join(t.TempDir(), "claude.log")
	_, sock, dir := standaloneDaemon(t)
	f := openFleet(t)
	r := sessiontest.Record(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := fleet.FollowBlemees(ctx, f, sock, fleet.BlemeesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	id, err := b.Open(fleet.HeadlessSpec{ID: "h-1", Dir: dir, Model: "opus"})
	if err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Added, id, 0)
	waitTranscript(t, f, id, "system: claude started · opus\n")
	in := infoOf(t, f, id)
	if in.Kind != session.KindHeadless || in.Caps != session.CapTranscript|session.CapInterrupt|session.CapRestart|session.CapOutlive || !in.Owned || in.Dir != dir || !in.Alive {
		t.Fatalf("info %+v", in)
	}
	// Another client's session, in a directory no session of the fleet
	// is in: the daemon tells of it, and of its close.
	other := blemeestest.Connect(t, sock)
	openOn(t, other, "1234123412341234", t.TempDir())
	r.Wait(t, session.Added, "claude-12341234", 0)
	other.Request(map[string]any{"type": "blemeesd.close", "id": "c1", "session_id": "1234123412341234"}, "blemeesd.closed")
	r.Wait(t, session.Exited, "claude-12341234", 0)
	if err := f.Send(id, session.Input{Data: []byte("tool\r")}); err != nil {
		t.Fatal(err)
	}
	waitTranscript(t, f, id, "user: tool\ntool: Bash {\"command\":\"ls\"}\ntool: → a.txt\nassistant: listed\n")
	if n := strings.Count(roles(f.Transcript(id, 0)), "user: tool\n"); n != 1 {
		t.Fatalf("the user's turn is shown %d times:\n%s", n, roles(f.Transcript(id, 0)))
	}
	interruptSlowTurn(t, f, id)

	// Kill closes it on the daemon; Restart opens it again with resume.
	if err := f.Kill(id, false); err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Exited, id, 0)
	t.Setenv("FAKE_CLAUDE_LOG", claudeLog)
	if err := f.Restart(id); err != nil {
		t.Fatal(err)
	}
	proctest.WaitFor(t, "the resumed session", 10*time.Second, func() bool { return infoOf(t, f, id).Alive })
	if err := f.Send(id, session.Input{Data: []byte("again\r")}); err != nil {
		t.Fatal(err)
	}
	waitTranscript(t, f, id, "assistant: echo: again\n")
	if log, _ := os.ReadFile(os.Getenv("FAKE_CLAUDE_LOG")); !strings.Contains(string(log), `"--resume"`) {
		t.Fatalf("claude's argv after the restart: %s", log)
	}

	// Another client takes it over: watched from then on.
	thief := blemeestest.Connect(t, sock)
	sid := liveSession(t, thief, dir, "")
	if fr := thief.Request(map[string]any{"type": "blemeesd.open", "id": "t1", "session_id": sid, "resume": true, "cwd": dir}, "blemeesd.opened"); fr.Type() != "blemeesd.opened" {
		t.Fatalf("takeover: %v", fr)
	}
	proctest.WaitFor(t, "not owned after the takeover", 10*time.Second, func() bool { return !infoOf(t, f, id).Owned })
	err = f.Send(id, session.Input{Data: []byte("mine\r")})
	if err == nil || !strings.Contains(err.Error(), "took the session over") {
		t.Fatalf("send after the takeover: %v", err)
	}
	turn(thief, sid, "theirs")
	waitTranscript(t, f, id, "user: theirs\nassistant: echo: theirs\n")

	// A second session it owns goes on when the fleet closes (detached
	// in the daemon, for the next dashboard).
	id2, err := b.Open(fleet.HeadlessSpec{ID: "h-2", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Added, id2, 0)
	sid2 := liveSession(t, thief, dir, sid)
	f.Close()
	if fr := thief.Request(map[string]any{"type": "blemeesd.session_info", "id": "i2", "session_id": sid2}, "blemeesd.session_info_reply"); fr.Type() != "blemeesd.session_info_reply" {
		t.Fatalf("the owned session after the fleet closed: %v", fr)
	}
	if fr := thief.Request(map[string]any{"type": "blemeesd.session_info", "id": "i1", "session_id": sid}, "blemeesd.session_info_reply"); fr.Type() != "blemeesd.session_info_reply" {
		t.Fatalf("the session taken over after the fleet closed: %v", fr)
	}

	// The next dashboard: both sessions, the user's turns in them.
	f2 := openFleet(t)
	r2 := sessiontest.Record(t, f2)
	b2, err := fleet.FollowBlemees(ctx, f2, sock, fleet.BlemeesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	r2.Wait(t, session.Added, "claude-"+sid[:8], 0)
	r2.Wait(t, session.Added, "claude-"+sid2[:8], 0)
	waitTranscript(t, f2, "claude-"+sid[:8], "user: again\nassistant: echo: again\n")
	waitTranscript(t, f2, "claude-"+sid[:8], "user: theirs\nassistant: echo: theirs\n")
}

// liveSession is the id of the one attached session in dir but except,
// as list_sessions says.
func liveSession(t *testing.T, c *blemeestest.Conn, dir, except string) string {
	t.Helper()
	fr := c.Request(map[string]any{"type": "blemeesd.list_sessions", "id": "l-" + except, "cwd": dir}, "blemeesd.sessions")
	rows, _ := fr["sessions"].([]any)
	var ids []string
	for _, row := range rows {
		m, _ := row.(map[string]any)
		if sid, _ := m["session_id"].(string); m["attached"] == true && sid != except {
			ids = append(ids, sid)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("attached sessions in %s but %q: %v", dir, except, fr)
	}
	return ids[0]
}
