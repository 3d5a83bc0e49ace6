package supervisor

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/vt"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// nextFrame reads the connection's next frame, failing the test after
// timeout.
func nextFrame(t *testing.T, c *frame.Client, timeout time.Duration) frame.Frame {
	t.Helper()
	c.Conn().SetReadDeadline(time.Now().Add(timeout))
	defer c.Conn().SetReadDeadline(time.Time{})
	f, err := c.Next()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return f
}

// readPaint reads a PAINT whose first piece is first (the rest from c)
// and draws it on a fresh emulator of its size.
func readPaint(t *testing.T, c *frame.Client, first frame.Frame) (*vt.Snapshot, int) {
	t.Helper()
	var (
		b      []byte
		pieces int
	)
	f := first
	for {
		if f.Type != frame.Paint {
			t.Fatalf("got %v in a PAINT", f.Type)
		}
		h, p, err := frame.ParsePaint(f.Payload)
		if err != nil {
			t.Fatal(err)
		}
		if len(p) > maxChunk {
			t.Errorf("a PAINT piece of %d bytes, want at most %d", len(p), maxChunk)
		}
		b = append(b, p...)
		pieces++
		if !h.More {
			emu := vt.New(int(h.Cols), int(h.Rows), vt.Options{})
			emu.Write(b)
			return emu.Snapshot(), pieces
		}
		f = nextFrame(t, c, 10*time.Second)
	}
}

// expectPaint reads the next frame, which must be a PAINT, and returns
// what it draws.
func expectPaint(t *testing.T, c *frame.Client) *vt.Snapshot {
	t.Helper()
	s, _ := readPaint(t, c, nextFrame(t, c, 10*time.Second))
	return s
}

// nextPaint reads up to the next PAINT, skipping OUTPUT, and returns what
// it draws and in how many pieces it came.
func nextPaint(t *testing.T, c *frame.Client) (*vt.Snapshot, int) {
	t.Helper()
	for {
		f := nextFrame(t, c, 10*time.Second)
		if f.Type != frame.Output {
			return readPaint(t, c, f)
		}
	}
}

// expectNoPaint sends STATUS and checks that its reply is the next frame.
func expectNoPaint(t *testing.T, c *frame.Client, why string) {
	t.Helper()
	if err := c.Send(frame.Status, nil); err != nil {
		t.Fatal(err)
	}
	if f := nextFrame(t, c, 10*time.Second); f.Type != frame.StatusResp {
		t.Fatalf("%s: got %v before STATUS_RESP", why, f.Type)
	}
}

// watchersCalled registers a screen watcher with sess (call it before the
// changes to wait for) and returns wait: wait(seq) returns once the
// session's screen watchers, a WATCH_SCREEN's among them, have been
// called for a screen at least as new as seq and have all returned.
func watchersCalled(t *testing.T, sess *Session) (wait func(seq uint64)) {
	var saw atomic.Uint64
	woke := make(chan struct{}, 1)
	// The feeder calls the watchers between writes to the emulator: the
	// Seq they see is the screen they are called for.
	t.Cleanup(sess.WatchScreen(func() {
		saw.Store(sess.scr.emu.Seq())
		select {
		case woke <- struct{}{}:
		default:
		}
	}))
	return func(seq uint64) {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for saw.Load() < seq {
			select {
			case <-woke:
			case <-timeout:
				t.Fatalf("the screen watchers were not called for screen %d (last %d)", seq, saw.Load())
			}
		}
		// They are called in one loop under wmu: it has ended once
		// wmu is free.
		sess.scr.wmu.Lock()
		sess.scr.wmu.Unlock()
	}
}

// A WATCH_SCREEN client gets a PAINT per WATCH_SCREEN: at once when the
// screen differs from the last one sent, at its next change otherwise,
// never unasked; it gets no output; at the end, the final screen and EXIT.
func TestWatchScreenPaintsWhenAsked(t *testing.T) {
	const cols, rows = 50, 12
	srv := startServed(t, Config{Argv: []string{"sh", "-c",
		`printf '\033]0;paint\007one\r\n'; read a; printf 'two %s\r\n' "$a"; read b; printf 'three\r\n'; read c; printf 'four\r\n'; exit 3`},
		Cols: cols, Rows: rows})
	// screenHas waits for s on the session's screen and returns the Seq
	// of a screen that shows it.
	screenHas := func(s string) (seq uint64) {
		t.Helper()
		waitFor(t, s, 10*time.Second, func() bool {
			sn := srv.sess.Screen()
			seq = sn.Seq
			return strings.Contains(sn.Text(), s)
		})
		return seq
	}
	observed := watchersCalled(t, srv.sess)
	screenHas("one")
	c := dial(t, srv.sock)
	if err := c.Send(frame.WatchScreen, nil); err != nil {
		t.Fatal(err)
	}
	s := expectPaint(t, c)
	if !strings.Contains(s.Text(), "one") || s.Title != "paint" || s.Cols != cols || s.Rows != rows {
		t.Fatalf("first PAINT: %dx%d title %q %q", s.Cols, s.Rows, s.Title, s.Text())
	}
	if got, want := s.Text(), srv.sess.Screen().Text(); got != want {
		t.Fatalf("PAINT draws %q, the session shows %q", got, want)
	}

	// Not asked: the change sends nothing, and no OUTPUT comes (SUBSCRIBE
	// and SUBSCRIBE_SCREEN are ignored after WATCH_SCREEN).
	for _, ty := range []frame.Type{frame.Subscribe, frame.SubscribeScreen} {
		if err := c.Send(ty, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Input([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	observed(screenHas("two x"))
	expectNoPaint(t, c, "a change not asked for")

	// Asked after the change: at once.
	if err := c.Send(frame.WatchScreen, nil); err != nil {
		t.Fatal(err)
	}
	if s := expectPaint(t, c); !strings.Contains(s.Text(), "two x") {
		t.Fatalf("PAINT after the change: %q", s.Text())
	}

	// Asked with the screen unchanged: nothing yet (a repeat counts once);
	// then the change brings it.
	for range 2 {
		if err := c.Send(frame.WatchScreen, nil); err != nil {
			t.Fatal(err)
		}
	}
	expectNoPaint(t, c, "an unchanged screen")
	if err := c.Input([]byte("y\n")); err != nil {
		t.Fatal(err)
	}
	// The first change is the echo; ask on until the answer shows.
	for s := expectPaint(t, c); !strings.Contains(s.Text(), "three"); s = expectPaint(t, c) {
		if !strings.Contains(s.Text(), "y") {
			t.Fatalf("PAINT at the change: %q", s.Text())
		}
		if err := c.Send(frame.WatchScreen, nil); err != nil {
			t.Fatal(err)
		}
	}
	observed(screenHas("three"))
	expectNoPaint(t, c, "one PAINT per WATCH_SCREEN")

	// The end: the final screen, asked for or not, then EXIT.
	if err := c.Input([]byte("z\n")); err != nil {
		t.Fatal(err)
	}
	var last *vt.Snapshot
	for {
		f := nextFrame(t, c, 10*time.Second)
		if f.Type == frame.Exit {
			if code, _ := frame.ParseExit(f.Payload); code != 3 {
				t.Fatalf("EXIT %d, want 3", code)
			}
			break
		}
		if f.Type != frame.Paint {
			t.Fatalf("got %v, want PAINT or EXIT", f.Type)
		}
		last, _ = readPaint(t, c, f)
	}
	if last == nil || !strings.Contains(last.Text(), "four") {
		t.Fatalf("no PAINT of the final screen before EXIT (last %v)", last)
	}
}

// A repaint longer than a frame carries comes in pieces; joined, they draw
// the session's screen.
func TestWatchScreenLongPaint(t *testing.T) {
	const cols, rows = 200, 60
	// A 24-bit colour of its own for every cell: ~20 bytes a cell.
	script := fmt.Sprintf(`i=0; while [ $i -lt %d ]; do printf '\033[38;2;%%d;%%d;%%dm#' $((i%%256)) $((i/256%%256)) $((i%%7)); i=$((i+1)); done; printf '\033[mEND'; read x`, cols*rows-cols)
	srv := startServed(t, Config{Argv: []string{"sh", "-c", script}, Cols: cols, Rows: rows})
	waitFor(t, "the screen to fill", 30*time.Second, func() bool { return strings.Contains(srv.sess.Screen().Text(), "END") })
	c := dial(t, srv.sock)
	if err := c.Send(frame.WatchScreen, nil); err != nil {
		t.Fatal(err)
	}
	s, pieces := readPaint(t, c, nextFrame(t, c, 10*time.Second))
	if pieces < 2 {
		t.Fatalf("a %dx%d screen of 24-bit colours came in %d PAINT", cols, rows, pieces)
	}
	want := srv.sess.Screen()
	if s.Text() != want.Text() {
		t.Fatal("the joined PAINT draws another screen")
	}
	if got, w := s.Cells[3][7].Style, want.Cells[3][7].Style; !got.Equal(&w) {
		t.Fatalf("cell style %+v, the session's %+v", got, w)
	}
}

// WATCH_SCREEN on a connection that is already subscribed adds PAINTs to
// its output; EXIT still ends it.
func TestWatchScreenOnSubscriber(t *testing.T) {
	srv := startServed(t, Config{Argv: []string{"sh", "-c", `printf 'ready\r\n'; read a; exit 0`}})
	c := dial(t, srv.sock)
	subscribeSync(t, c)
	waitFor(t, "ready", 10*time.Second, func() bool { return strings.Contains(srv.sess.Screen().Text(), "ready") })
	if err := c.Send(frame.WatchScreen, nil); err != nil {
		t.Fatal(err)
	}
	if s, _ := nextPaint(t, c); !strings.Contains(s.Text(), "ready") {
		t.Fatalf("PAINT %q", s.Text())
	}
	c.Input([]byte("\n"))
	if _, code := readUntilExit(t, c, 10*time.Second); code != 0 {
		t.Fatalf("EXIT %d", code)
	}
}

// A client that asks and asks but does not read makes the server hold at
// most paintBacklog and a PAINT, however fast the screen changes; once it
// reads, it gets what it asked for.
func TestWatchScreenBacklogBounded(t *testing.T) {
	// A screen full of colours, hyperlinks and wide characters, scrolling.
	srv := startServed(t, Config{Argv: flood(newGate(t), 40, ""), Cols: 120, Rows: 40})
	observed := watchersCalled(t, srv.sess)
	c := dial(t, srv.sock)
	ask := func() {
		t.Helper()
		if err := c.Send(frame.WatchScreen, nil); err != nil {
			t.Fatal(err)
		}
	}
	ask()
	var (
		w *screenWatch
		q *outq
	)
	waitFor(t, "the connection's screen watch", 10*time.Second, func() bool {
		srv.srv.mu.Lock()
		defer srv.srv.mu.Unlock()
		for sc := range srv.srv.conns {
			if w, q = sc.paints.Load(), sc.outq(); w != nil && q != nil {
				return true
			}
		}
		return false
	})
	// The most queued for the client, after each of its frames was taken:
	// the queue grows only then and when the screen changes.
	most, limit := 0, paintBacklog+64<<10
	sample := func() {
		t.Helper()
		if most = max(most, q.queued()); most > limit {
			t.Fatalf("%d bytes queued for a client that does not read, want at most %d", most, limit)
		}
	}
	// Ask, each time once the last WATCH_SCREEN was taken, until one is
	// held back: the client's socket and then its queue fill. One that
	// waits with the queue over paintBacklog is held back if it still
	// waits once the watchers have seen the screen change.
	for {
		w.mu.Lock()
		last := w.seq
		w.mu.Unlock()
		ask()
		waiting := false
		waitFor(t, "the WATCH_SCREEN taken", 10*time.Second, func() bool {
			w.mu.Lock()
			defer w.mu.Unlock()
			waiting = w.asked
			return waiting || w.seq != last
		})
		sample()
		if waiting && q.queued() > paintBacklog {
			observed(srv.sess.scr.emu.Seq() + 1)
			w.mu.Lock()
			held := w.asked
			w.mu.Unlock()
			if sample(); held {
				break
			}
		}
	}
	// Held back: more asks and more changes of the screen queue nothing
	// but the reply to the STATUS after them.
	for range 10 {
		ask()
	}
	if err := c.Send(frame.Status, nil); err != nil {
		t.Fatal(err)
	}
	observed(srv.sess.scr.emu.Seq() + 1)
	waitFor(t, "STATUS_RESP queued", 10*time.Second, func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		for _, s := range q.pending {
			if len(s) == frame.HeaderSize && s[0] == byte(frame.StatusResp) {
				return true
			}
		}
		return false
	})
	sample()
	if testing.Verbose() {
		t.Logf("%d bytes queued at most", most)
	}
	// Reading: the PAINTs queued, the reply, then the PAINT held back.
	for f := nextFrame(t, c, 10*time.Second); f.Type != frame.StatusResp; f = nextFrame(t, c, 10*time.Second) {
		if f.Type != frame.Paint {
			t.Fatalf("got %v", f.Type)
		}
	}
	expectPaint(t, c)
}

// A PAINT's pieces are consecutive frames: on a subscribed connection
// whose program floods, no OUTPUT (nor a reply) comes between them.
func TestWatchScreenPiecesConsecutive(t *testing.T) {
	const cols, rows = 240, 80
	// A 24-bit colour of its own for every cell (a repaint of ~3 pieces),
	// written again and again with a counter in the corner.
	var fill strings.Builder
	fill.WriteString("\x1b[H")
	for i := range cols * rows {
		fmt.Fprintf(&fill, "\x1b[38;2;%d;%d;%dm#", i%256, i/256%256, i%7)
	}
	path := shortDir(t) + "/fill"
	if err := os.WriteFile(path, []byte(fill.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startServed(t, Config{Argv: []string{"sh", "-c", `i=0; while :; do cat "$0"; printf '\033[H%d' $i; i=$((i+1)); done`, path},
		Cols: cols, Rows: rows})
	waitFor(t, "the screen to fill", 30*time.Second, func() bool {
		l := srv.sess.Screen().Lines()
		return len(l) == rows && strings.HasSuffix(l[rows-1], "##")
	})
	c := dial(t, srv.sock)
	subscribeSync(t, c)
	for range 20 {
		if err := c.Send(frame.WatchScreen, nil); err != nil {
			t.Fatal(err)
		}
		// readPaint fails on anything but PAINT before the last piece.
		if _, pieces := nextPaint(t, c); pieces < 2 {
			t.Fatalf("a PAINT of a %dx%d screen of 24-bit colours in %d piece", cols, rows, pieces)
		}
	}
}
