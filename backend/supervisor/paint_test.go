package supervisor

import (
	"fmt"
	"os"
	"strings"
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

// A WATCH_SCREEN client gets a PAINT per WATCH_SCREEN: at once when the
// screen differs from the last one sent, at its next change otherwise,
// never unasked; it gets no output; at the end, the final screen and EXIT.
func TestWatchScreenPaintsWhenAsked(t *testing.T) {
	const cols, rows = 50, 12
	srv := startServed(t, Config{Argv: []string{"sh", "-c",
		`printf '\033]0;paint\007one\r\n'; read a; printf 'two %s\r\n' "$a"; read b; printf 'three\r\n'; read c; printf 'four\r\n'; exit 3`},
		Cols: cols, Rows: rows})
	screenHas := func(s string) {
		t.Helper()
		waitFor(t, s, 10*time.Second, func() bool { return strings.Contains(srv.sess.Screen().Text(), s) })
	}
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

	// Not asked: the change sends nothing, and no OUTPUT comes.
	if err := c.Input([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	screenHas("two x")
	time.Sleep(50 * time.Millisecond) // past the feeder's observe of it
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
	screenHas("three")
	time.Sleep(50 * time.Millisecond)
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
	for {
		f := nextFrame(t, c, 10*time.Second)
		if f.Type == frame.Output {
			continue
		}
		if s, _ := readPaint(t, c, f); !strings.Contains(s.Text(), "ready") {
			t.Fatalf("PAINT %q", s.Text())
		}
		break
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
	c := dial(t, srv.sock)
	for range 3000 {
		if err := c.Send(frame.WatchScreen, nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Microsecond)
	}
	time.Sleep(100 * time.Millisecond)
	most := 0
	srv.srv.mu.Lock()
	for sc := range srv.srv.conns {
		if q := sc.outq(); q != nil {
			most = max(most, q.queued())
		}
	}
	srv.srv.mu.Unlock()
	if limit := paintBacklog + 64<<10; most > limit {
		t.Fatalf("%d bytes queued for a client that does not read, want at most %d", most, limit)
	}
	if testing.Verbose() {
		t.Logf("%d bytes queued at most", most)
	}
	if err := c.Send(frame.WatchScreen, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Send(frame.Status, nil); err != nil {
		t.Fatal(err)
	}
	paints := 0
	for f := nextFrame(t, c, 10*time.Second); f.Type != frame.StatusResp; f = nextFrame(t, c, 10*time.Second) {
		if f.Type != frame.Paint {
			t.Fatalf("got %v", f.Type)
		}
		paints++
	}
	if paints == 0 {
		t.Fatal("no PAINT once the client read")
	}
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
		for {
			f := nextFrame(t, c, 10*time.Second)
			if f.Type == frame.Output {
				continue
			}
			// readPaint fails on anything but PAINT before the last piece.
			if _, pieces := readPaint(t, c, f); pieces < 2 {
				t.Fatalf("a PAINT of a %dx%d screen of 24-bit colours in %d piece", cols, rows, pieces)
			}
			break
		}
	}
}
