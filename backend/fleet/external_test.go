package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/review"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// A session another process starts in the directory after New appears:
// Added, its screen (fed over its socket), its title and state, input,
// and a Kill through the fleet that ends it with its code.
func TestExternalAfterNew(t *testing.T) {
	// The shell preset is $SHELL; a CI runner's /bin/sh would name "sh" shell.
	t.Setenv("SHELL", "/bin/bash")
	dir := shortDir(t)
	f := newFleet(t, dir)
	r := record(t, f)
	g := newGate(t)
	script := g.Wait() + `; printf '\033]0;TT\007hello\n'; i=0; while [ $i -lt 15 ]; do echo tick$i; sleep 0.05; i=$((i+1)); done; read x; echo got:$x; exec sleep 30`
	x := startExternal(t, dir, "ext", "sh", "-c", script)
	r.Wait(t, session.Added, "ext", 0)
	in := mustInfo(t, f, "ext")
	if in.Owned || !in.Alive || in.PID != x.sess.PID() || in.Cols != 80 || in.Rows != 24 {
		t.Fatalf("external info %+v", in)
	}
	if !slices.Equal(in.Argv, []string{"sh", "-c", script}) || in.Agent != "sh" {
		t.Fatalf("argv %q agent %q", in.Argv, in.Agent)
	}
	if wd, _ := os.Getwd(); in.Dir != wd {
		t.Fatalf("dir %q, want %q", in.Dir, wd)
	}
	if in.State != session.Idle {
		t.Fatalf("state before any output: %v", in.State)
	}
	g.Open(t)
	waitFor(t, "Active state from the external's classifier", 10*time.Second, func() bool {
		return mustInfo(t, f, "ext").State == session.Active
	})
	waitFor(t, "hello and ticks on the screen", 10*time.Second, func() bool {
		return screenHas(f, "ext", "hello") && screenHas(f, "ext", "tick14")
	})
	waitFor(t, "title", 10*time.Second, func() bool { return mustInfo(t, f, "ext").Title == "TT" })
	if err := f.Send("ext", session.Input{Data: []byte("abc\r")}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "got:abc", 10*time.Second, func() bool { return screenHas(f, "ext", "got:abc") })
	// The fleet's screen is the external's own screen.
	if got, want := f.Screen("ext").Lines(), x.sess.Screen().Lines(); !slices.Equal(got, want) {
		t.Fatalf("screen differs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	waitFor(t, "Idle after quiet", 10*time.Second, func() bool { return mustInfo(t, f, "ext").State == session.Idle })
	if r.Count(session.Changed, "ext") == 0 || r.Count(session.Dirty, "ext") == 0 {
		t.Fatalf("events %v", r)
	}
	if err := f.Resize("ext", 100, 30); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "external resized", 10*time.Second, func() bool {
		c, rr := x.sess.Size()
		return c == 100 && rr == 30
	})
	if in := mustInfo(t, f, "ext"); in.Cols != 100 || in.Rows != 30 {
		t.Fatalf("info size %dx%d", in.Cols, in.Rows)
	}
	if err := f.Kill("ext", false); err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Exited, "ext", 0)
	if in := mustInfo(t, f, "ext"); in.Alive || in.ExitCode != 128+15 || in.State != session.Dead {
		t.Fatalf("after kill %+v", in)
	}
	if err := f.Remove("ext"); err != nil {
		t.Fatal(err)
	}
}

// An external session's Exited is published once all its output is on the
// fleet's screen (the screen is fed on its own goroutine).
func TestExternalExitAfterScreen(t *testing.T) {
	dir := shortDir(t)
	f := newFleet(t, dir)
	r := record(t, f)
	g := newGate(t)
	startExternal(t, dir, "burst", "sh", "-c", g.Wait()+"; seq 1 300000; echo LAST")
	r.Wait(t, session.Added, "burst", 0)
	g.Open(t)
	r.Wait(t, session.Exited, "burst", 0)
	if !screenHas(f, "burst", "LAST") {
		t.Fatalf("Exited before the last output reached the screen:\n%s", f.Screen("burst").Text())
	}
}

// Sessions already served when the fleet opens are adopted at once; stale
// socket files are ignored; a socket whose server goes away without EXIT
// is Removed.
func TestExternalBeforeNewAndStale(t *testing.T) {
	dir := shortDir(t)
	x := startExternal(t, dir, "pre", "sh", "-c", "printf early; exec sleep 30")
	waitFor(t, "early", 10*time.Second, func() bool { return strings.Contains(x.sess.Screen().Text(), "early") })
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: supervisor.SocketPath(dir, "stale"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	f := newFleet(t, dir)
	r := record(t, f)
	ss := f.Sessions()
	if len(ss) != 1 || ss[0].ID != "pre" || ss[0].Owned {
		t.Fatalf("sessions %+v", ss)
	}
	waitFor(t, "early in the adopted screen", 10*time.Second, func() bool { return screenHas(f, "pre", "early") })
	// A new stale socket is ignored too.
	l2, err := net.ListenUnix("unix", &net.UnixAddr{Name: supervisor.SocketPath(dir, "stale2"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l2.SetUnlinkOnClose(false)
	l2.Close()
	// The server vanishes without EXIT (its process crashed).
	x.srv.Close()
	r.Wait(t, session.Removed, "pre", 0)
	if _, ok := info(f, "pre"); ok {
		t.Fatal("vanished session still listed")
	}
	if len(f.Sessions()) != 0 {
		t.Fatalf("sessions %+v", f.Sessions())
	}
}

// The fleet never adopts its own sockets: every owned session is listed
// once, as owned.
func TestOwnSocketsNotAdopted(t *testing.T) {
	f := newFleet(t, "")
	for range 5 {
		spawn(t, f, Spec{Agent: "shell", Argv: []string{"sh", "-c", "exec sleep 30"}})
	}
	time.Sleep(200 * time.Millisecond) // let the watcher see every Create and Chmod
	ss := f.Sessions()
	if len(ss) != 5 {
		t.Fatalf("%d sessions", len(ss))
	}
	for _, in := range ss {
		if !in.Owned {
			t.Fatalf("own session adopted: %+v", in)
		}
	}
}

// Restarting an external session starts its argv again as an owned
// session with the same ID once the old one has exited.
func TestRestartExternal(t *testing.T) {
	dir := shortDir(t)
	f := newFleet(t, dir)
	r := record(t, f)
	x := startExternal(t, dir, "rx", "sh", "-c", "printf up; sleep 30") // no exec: /proc keeps the sh command line
	r.Wait(t, session.Added, "rx", 0)
	if err := f.Restart("rx"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "owned again", 15*time.Second, func() bool {
		in, ok := info(f, "rx")
		return ok && in.Owned && in.Alive
	})
	if !processGone(x.sess.PID()) {
		t.Fatal("old external still running")
	}
	waitFor(t, "up", 10*time.Second, func() bool { return screenHas(f, "rx", "up") })
}

// Close leaves the sessions it spawned running (their supervisors are
// processes of their own), sockets answering, and stops every goroutine
// the fleet started. A later fleet adopts them with what their records
// say, and StopOwned hangs up those a dashboard started — also one whose
// program ignores SIGTERM — and waits for their supervisors, leaving a
// session a user started with run alone.
func TestCloseLeavesRunningStopOwnedStops(t *testing.T) {
	dir := shortDir(t)
	x := startExternal(t, dir, "keep", "sh", "-c", "printf on; exec sleep 30")
	time.Sleep(50 * time.Millisecond)
	base := runtime.NumGoroutine()
	o := testOptions(t, dir, testConfig())
	f, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	var pids, sups []int
	for _, argv := range [][]string{
		{"sh", "-c", "printf a; exec sleep 30"},
		{"sh", "-c", `trap "" TERM; printf b; while :; do sleep 0.05; done`},
	} {
		id, err := f.Spawn(Spec{Argv: argv, Agent: "shell"})
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, mustInfo(t, f, id).PID)
		rec, err := supervisor.ReadRecord(dir, id)
		if err != nil || !rec.Dashboard || rec.Agent != "shell" {
			t.Fatalf("record of %s: %+v %v", id, rec, err)
		}
		sups = append(sups, rec.Supervisor)
	}
	waitFor(t, "output", 10*time.Second, func() bool {
		return screenHas(f, "shell-1", "a") && screenHas(f, "shell-2", "b") && screenHas(f, "keep", "on")
	})
	f.Resize("keep", 90, 20) // the external's connections are busy
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, pid := range append(slices.Clone(pids), sups...) {
		if processGone(pid) {
			t.Fatalf("pid %d ended with the fleet", pid)
		}
	}
	// Pending events are drained, then ErrClosed.
	for {
		_, err := f.Next(context.Background())
		if errors.Is(err, ErrClosed) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// Left: one waiter per supervisor launched (proc.Start), which reaps
	// it when it exits.
	waitGoroutines(t, base+len(sups))
	if _, err := f.Spawn(Spec{Argv: []string{"true"}}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Spawn after Close: %v", err)
	}

	g := openFleet(t, o)
	for _, id := range []string{"shell-1", "shell-2"} {
		in := mustInfo(t, g, id)
		if !in.Owned || !in.Alive || in.Agent != "shell" || in.Classifier != "simple" {
			t.Fatalf("adopted %s: %+v", id, in)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if n, err := g.StopOwned(ctx); n != 2 || err != nil {
		t.Fatalf("StopOwned = %d, %v", n, err)
	}
	for _, pid := range append(pids, sups...) {
		if !processGone(pid) {
			t.Errorf("pid %d still running after StopOwned", pid)
		}
	}
	for _, id := range []string{"shell-1", "shell-2"} {
		if _, err := os.Lstat(supervisor.SocketPath(dir, id)); !os.IsNotExist(err) {
			t.Errorf("socket of %s left: %v", id, err)
		}
	}
	select {
	case <-x.sess.Done():
		t.Fatal("StopOwned stopped a session a user started")
	default:
	}
	g.Close()
	waitGoroutines(t, base)
}

// waitGoroutines waits (bounded) until at most n goroutines run.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, want ≤ %d:\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// An idle fleet publishes nothing: once the owned and external sessions
// have settled (their classifier deadlines passed), Next waits out a
// whole second.
func TestIdleFleetIsQuiet(t *testing.T) {
	dir := shortDir(t)
	startExternal(t, dir, "x1", "sh", "-c", "printf ext; exec sleep 30")
	f := newFleet(t, dir)
	spawn(t, f, Spec{Argv: []string{"sh", "-c", "printf own; exec sleep 30"}})
	waitFor(t, "output", 10*time.Second, func() bool { return screenHas(f, "sh-1", "own") && screenHas(f, "x1", "ext") })
	waitFor(t, "both idle", 10*time.Second, func() bool {
		for _, in := range f.Sessions() {
			if in.State != session.Idle {
				return false
			}
		}
		return true
	})
	// Settle: the last timers fire at lastOutput + idle + hold + margin.
	time.Sleep(testIdle + 500*time.Millisecond)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		evs, err := f.Next(ctx)
		cancel()
		if err != nil {
			break
		}
		_ = evs
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	evs, err := f.Next(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("idle fleet published %v (err %v)", evs, err)
	}
}

// A fleet that comes to a session shows its screen at once, exactly: a
// line drawn before the last 64 KiB of output (which a scrollback replay
// would have started after) is there, and so is what the output since drew.
// Its idle time is the session's, not the time of connecting.
func TestComingBackShowsTheScreen(t *testing.T) {
	dir := shortDir(t)
	// TOP-LINE, then ~100 KiB rewriting row 5 in place (nothing scrolls).
	script := `printf 'TOP-LINE\n'; i=0; while [ $i -lt 2000 ]; do printf '\033[5;1Hrow five is rewritten again and again %04d' $i; i=$((i+1)); done; exec sleep 30`
	x := startExternal(t, dir, "old", "sh", "-c", script)
	waitFor(t, "the session's own screen", 10*time.Second, func() bool {
		return strings.Contains(x.sess.Screen().Text(), "again 1999")
	})
	time.Sleep(1500 * time.Millisecond) // idle for a while
	f := newFleet(t, dir)
	waitFor(t, "the repaint", 10*time.Second, func() bool { return screenHas(f, "old", "again 1999") })
	if got, want := f.Screen("old").Lines(), x.sess.Screen().Lines(); !slices.Equal(got, want) {
		t.Fatalf("screen differs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if idle := time.Since(mustInfo(t, f, "old").LastOutput); idle < time.Second {
		t.Fatalf("idle %v after connecting to a session quiet for 1.5 s", idle)
	}
}

// A session that ends while no fleet follows it is listed by the next one
// as Dead with its exit code and the screen it left, from its record;
// removing it removes the record.
func TestEndedWhileAway(t *testing.T) {
	dir := shortDir(t)
	gate := filepath.Join(shortDir(t), "gate")
	o := testOptions(t, dir, testConfig())
	f, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	id := spawn(t, f, Spec{ID: "late", Argv: []string{"sh", "-c",
		`printf 'waiting\n'; while [ ! -e "$0" ]; do sleep 0.02; done; printf 'last-words'; exit 3`, gate}})
	waitFor(t, "waiting", 10*time.Second, func() bool { return screenHas(f, id, "waiting") })
	f.Close()
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the record of the end", 10*time.Second, func() bool {
		rec, err := supervisor.ReadRecord(dir, id)
		return err == nil && rec.Ended != nil
	})
	g := openFleet(t, o)
	// The supervisor may still be finishing (its record is written before
	// EXIT goes out): g may have found it live, and learns of the end from
	// EXIT or, if the supervisor went first, from the record.
	waitFor(t, "the session's end", 10*time.Second, func() bool { return !mustInfo(t, g, id).Alive })
	in := mustInfo(t, g, id)
	if in.Alive || in.State != session.Dead || in.ExitCode != 3 || !in.Owned || !in.Caps.Has(session.CapScreen|session.CapRestart) {
		t.Fatalf("ended session %+v", in)
	}
	if !screenHas(g, id, "last-words") {
		t.Fatalf("its last screen is not shown:\n%s", g.Screen(id).Text())
	}
	if err := g.SetNotes(id, []review.Note{{File: "a.txt", Line: 1, Text: "x"}}); err != nil {
		t.Fatal(err)
	}
	if err := g.Remove(id); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(supervisor.RecordPath(dir, id)); !os.IsNotExist(err) {
		t.Fatalf("record left after Remove: %v", err)
	}
	if _, err := os.Stat(supervisor.NotesPath(dir, id)); !os.IsNotExist(err) {
		t.Fatalf("notes left after Remove: %v", err)
	}
}

// A followed session whose supervisor recorded its end and went away
// before EXIT reached the dashboard (one that connected while the
// supervisor was finishing) is listed from the record as Dead, with its
// exit code and last screen, not removed.
func TestVanishedAfterRecordedEnd(t *testing.T) {
	dir := shortDir(t)
	end := make(chan struct{})
	serveSocket(t, supervisor.SocketPath(dir, "gone"), func(c net.Conn) {
		go func() { <-end; c.Close() }()
		serveOlder(c, true)
	})
	f := newFleet(t, dir)
	r := record(t, f)
	r.Wait(t, session.Added, "gone", 0)
	if in := mustInfo(t, f, "gone"); !in.Alive {
		t.Fatalf("the live session: %+v", in)
	}
	now := time.Now()
	if err := supervisor.WriteRecord(dir, supervisor.Record{ID: "gone", Argv: []string{"sh"}, Started: now.Add(-time.Minute),
		Ended: &now, ExitCode: 3, Cols: 80, Rows: 24, Screen: "last-words"}); err != nil {
		t.Fatal(err)
	}
	close(end)
	r.Wait(t, session.Exited, "gone", 0)
	if in := mustInfo(t, f, "gone"); in.Alive || in.State != session.Dead || in.ExitCode != 3 {
		t.Fatalf("after its end: %+v", in)
	}
	if !screenHas(f, "gone", "last-words") {
		t.Fatalf("its last screen is not shown:\n%s", f.Screen("gone").Text())
	}
	if n := r.Count(session.Removed, "gone"); n != 0 {
		t.Fatalf("removed %d times", n)
	}
}

// A server that ignores SUBSCRIBE_SCREEN (a heimdall-tui from before it),
// or SCREEN too (hm), is followed with SUBSCRIBE: its scrollback replay.
func TestFollowOlderServer(t *testing.T) {
	dir := shortDir(t)
	for _, id := range []string{"older", "hm"} {
		serveSocket(t, supervisor.SocketPath(dir, id), func(c net.Conn) { serveOlder(c, id == "older") })
	}
	f := newFleet(t, dir)
	for _, id := range []string{"older", "hm"} {
		waitFor(t, id+"'s replay on the screen", 10*time.Second, func() bool { return screenHas(f, id, "replayed-text") })
		if in := mustInfo(t, f, id); !in.Alive || in.Cols != 80 || in.Rows != 24 {
			t.Fatalf("%s: %+v", id, in)
		}
	}
}

// serveOlder answers as a server without SUBSCRIBE_SCREEN: STATUS, SCREEN
// (if screen) and SUBSCRIBE with a replay; anything else is ignored.
func serveOlder(c net.Conn, screen bool) {
	serveFake(c, screen, func(fr frame.Frame) {
		if fr.Type == frame.Subscribe {
			frame.Write(c, frame.Output, []byte("replayed-text"))
		}
	})
}

// serveFake serves c as a supervisor of an 80x24 session: it answers
// STATUS (alive) and, if screen, SCREEN, and hands every other frame to
// other, until c ends.
func serveFake(c net.Conn, screen bool, other func(frame.Frame)) {
	defer c.Close()
	c.Write([]byte{0}) // binary mode
	r := frame.NewReader(c)
	for {
		fr, err := r.Next()
		if err != nil {
			return
		}
		switch {
		case fr.Type == frame.Status:
			b, _ := frame.StatusInfo{Alive: true}.MarshalBinary()
			frame.Write(c, frame.StatusResp, b)
		case fr.Type == frame.Screen && screen:
			b, _ := frame.ScreenInfo{Cols: 80, Rows: 24}.MarshalBinary()
			frame.Write(c, frame.ScreenResp, b)
		default:
			other(fr)
		}
	}
}

// A session the dashboard does not show costs it nothing, however fast
// its program writes: its screen is pulled, not its output followed, and
// only when drawn. Through a relay: no OUTPUT reaches the dashboard, which
// never subscribes; after the first PAINT (when it connected) none comes
// until the screen is drawn (Screen), which asks for the next; it asks
// only once it has the last, gets no PAINT it did not ask for, and reports
// the screen changed only with a PAINT. Once shown, it is the session's
// own.
func TestUnshownFloodIsNotFollowed(t *testing.T) {
	dir, real := shortDir(t), shortDir(t)
	g := newGate(t)
	x := startExternal(t, real, "flood", "sh", "-c", g.Wait()+`; i=0; while :; do echo line$i; i=$((i+1)); done`)
	f := newFleet(t, dir)
	r := record(t, f)
	rl := startRelay(t, supervisor.SocketPath(dir, "flood"), supervisor.SocketPath(real, "flood"), 0)
	r.Wait(t, session.Added, "flood", 0)
	g.Open(t)
	waitFor(t, "the flood", 10*time.Second, func() bool { return strings.Contains(x.sess.Screen().Text(), "line") })
	// Not shown: nothing is asked for, so nothing more comes.
	rl.mu.Lock()
	before := rl.paints
	rl.mu.Unlock()
	if before != 1 {
		t.Fatalf("%d PAINTs for a session never drawn, want the first only", before)
	}
	// Drawn (as a pane would, each time it changed): pulled. Each draw
	// waits for the last PAINT to be in (its Dirty), as a pane's does.
	for i := 0; i < 3; i++ {
		f.Screen("flood")
		waitFor(t, "the next PAINT", 10*time.Second, func() bool { return r.Count(session.Dirty, "flood") > i })
	}
	dirty := r.Count(session.Dirty, "flood") // each after its PAINT
	rl.mu.Lock()
	out, subs, asks, paints, early := rl.down[frame.Output], rl.up[frame.Subscribe]+rl.up[frame.SubscribeScreen], rl.up[frame.WatchScreen], rl.paints, rl.early
	rl.mu.Unlock()
	if out != 0 || subs != 0 {
		t.Errorf("%d OUTPUT frames relayed to the dashboard, %d SUBSCRIBEs from it, for a session nobody shows", out, subs)
	}
	if early != 0 || paints > asks {
		t.Errorf("%d PAINTs for %d WATCH_SCREENs, %d of those sent while one waited", paints, asks, early)
	}
	if dirty > paints {
		t.Errorf("%d screen changes reported for %d PAINTs", dirty, paints)
	}
	if got := f.Screen("flood"); got == nil || !strings.Contains(got.Text(), "line") {
		t.Fatalf("the screen: %v", got)
	}
}

// A supervisor that knows SUBSCRIBE_SCREEN but not HELLO (an earlier
// release) is followed from its output, as a legacy session: screen,
// input, and the final screen with the exit.
func TestFollowServerWithoutHello(t *testing.T) {
	dir, real := shortDir(t), shortDir(t)
	x := startExternal(t, real, "old", "sh", "-c", `printf 'ready\n'; read a; printf 'got:%s\n' "$a"; exit 4`)
	startRelay(t, supervisor.SocketPath(dir, "old"), supervisor.SocketPath(real, "old"), frame.Hello)
	f := newFleet(t, dir)
	r := record(t, f)
	waitFor(t, "ready on the screen", 10*time.Second, func() bool { return screenHas(f, "old", "ready") })
	if err := f.Send("old", session.Input{Data: []byte("abc\r")}); err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Exited, "old", 0)
	if !screenHas(f, "old", "got:abc") {
		t.Fatalf("final screen %q", f.Screen("old").Text())
	}
	if in := mustInfo(t, f, "old"); in.ExitCode != 4 {
		t.Fatalf("exit code %d", in.ExitCode)
	}
	_ = x
}

// serveSocket listens on path until the test ends and serves each
// connection with serve, on a goroutine of its own.
func serveSocket(t *testing.T, path string, serve func(net.Conn)) {
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
}

// relay stands between the dashboard and a supervisor: each connection
// to its socket is relayed to one of its own to the supervisor's, frame
// by frame, and what passes is counted. Its goroutines may outlive the
// test, so they never touch it: a supervisor it could not reach is noted,
// and logged when the test ends (a dashboard may dial it after the
// session ended; one that mattered fails the test by what it missed).
type relay struct {
	sock string     // the supervisor's
	drop frame.Type // the client's frames of this type are not passed on (0: none)

	mu     sync.Mutex
	errs   []error
	up     map[frame.Type]int // the client's frames passed on
	down   map[frame.Type]int // the server's frames
	paints int                // complete PAINTs (their last pieces)
	conns  int                // connections relayed
	early  int                // WATCH_SCREENs sent while one waited for its PAINT
}

// startRelay relays the socket at path to the supervisor's at sock (see
// relay), dropping the client's frames of type drop (0: none).
func startRelay(t *testing.T, path, sock string, drop frame.Type) *relay {
	r := &relay{sock: sock, drop: drop, up: map[frame.Type]int{}, down: map[frame.Type]int{}}
	serveSocket(t, path, r.serve)
	t.Cleanup(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, err := range r.errs {
			t.Logf("relay: %v", err)
		}
	})
	return r
}

// serve relays c until either side ends.
func (r *relay) serve(c net.Conn) {
	defer c.Close()
	r.mu.Lock()
	r.conns++
	r.mu.Unlock()
	up, err := net.Dial("unix", r.sock)
	if err != nil {
		r.mu.Lock()
		r.errs = append(r.errs, err)
		r.mu.Unlock()
		return
	}
	defer up.Close()
	waiting := false // a WATCH_SCREEN on c waits for its PAINT (r.mu)
	go func() {
		defer c.Close()
		var mode [1]byte
		if _, err := io.ReadFull(up, mode[:]); err != nil {
			return
		}
		if _, err := c.Write(mode[:]); err != nil {
			return
		}
		r.pass(up, c, func(f frame.Frame) bool {
			r.down[f.Type]++
			if h, _, err := frame.ParsePaint(f.Payload); f.Type == frame.Paint && err == nil && !h.More {
				r.paints++
				waiting = false
			}
			return true
		})
	}()
	r.pass(c, up, func(f frame.Frame) bool {
		if r.drop != 0 && f.Type == r.drop {
			return false
		}
		r.up[f.Type]++
		if f.Type == frame.WatchScreen {
			if waiting {
				r.early++
			}
			waiting = true
		}
		return true
	})
}

// pass relays frames from src to dst until either ends. note counts each
// (under r.mu) before dst can see it, and says whether to pass it on.
func (r *relay) pass(src io.Reader, dst io.Writer, note func(frame.Frame) bool) {
	fr := frame.NewReader(src)
	for {
		f, err := fr.Next()
		if err != nil {
			return
		}
		r.mu.Lock()
		ok := note(f)
		r.mu.Unlock()
		if ok && frame.Write(dst, f.Type, f.Payload) != nil {
			return
		}
	}
}

// A fleet following idle supervisors holds one connection to each and,
// once connected, sends them nothing more: no poll, no timer. Counted
// through relays: after the handshake (HELLO, STATUS, WATCH_STATE,
// WATCH_SCREEN) no frame goes up while they sit idle, though they push.
func TestIdleFollowersSendNothing(t *testing.T) {
	const n = 20
	dir, real := shortDir(t), shortDir(t)
	var relays []*relay
	for i := range n {
		id := fmt.Sprintf("s%d", i)
		startExternal(t, real, id, "sh", "-c", "printf ready; exec sleep 60")
		relays = append(relays, startRelay(t, supervisor.SocketPath(dir, id), supervisor.SocketPath(real, id), 0))
	}
	f := newFleet(t, dir)
	waitFor(t, "every session idle", 10*time.Second, func() bool {
		ins := f.Sessions()
		if len(ins) != n {
			return false
		}
		for _, in := range ins {
			if in.State != session.Idle {
				return false
			}
		}
		return true
	})
	sent := func() (conns, up int) {
		for _, rl := range relays {
			rl.mu.Lock()
			conns += rl.conns
			for _, k := range rl.up {
				up += k
			}
			rl.mu.Unlock()
		}
		return conns, up
	}
	conns, up := sent()
	if conns != n || up != 4*n {
		t.Fatalf("%d connections and %d frames sent to %d sessions, want one each and 4 each", conns, up, n)
	}
	// Past the supervisors' last re-checks of their state (3.1 s after a
	// change): a poll or a timer of the follower's would show by then.
	time.Sleep(4 * time.Second)
	if c, u := sent(); c != conns || u != up {
		t.Fatalf("idle: %d connections and %d frames sent, then %d and %d", conns, up, c, u)
	}
}
