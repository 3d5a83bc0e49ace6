package supervisor

import (
	"bytes"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/vt"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// screenClient is a connection subscribed with SUBSCRIBE_SCREEN whose
// OUTPUT goes to an emulator of its own, as the dashboard's viewer of a
// followed session.
type screenClient struct {
	emu   *vt.Emulator
	n     atomic.Int64  // OUTPUT bytes
	first []byte        // the first OUTPUT frame's payload
	code  int           // EXIT's code; read after done
	done  chan struct{} // closed at EXIT (or a read error, reported)
}

// subscribeScreen dials sock and subscribes with SUBSCRIBE_SCREEN; a
// goroutine feeds the OUTPUT to a cols x rows emulator until EXIT.
func subscribeScreen(t *testing.T, sock string, cols, rows int) *screenClient {
	t.Helper()
	c := dial(t, sock)
	if err := c.SubscribeScreen(); err != nil {
		t.Fatal(err)
	}
	sc := &screenClient{emu: vt.New(cols, rows, vt.Options{}), code: -1000, done: make(chan struct{})}
	go sc.read(t, c)
	return sc
}

func (sc *screenClient) read(t *testing.T, c *frame.Client) {
	defer close(sc.done)
	c.Conn().SetReadDeadline(time.Now().Add(60 * time.Second))
	for {
		f, err := c.Next()
		if err != nil {
			t.Errorf("SUBSCRIBE_SCREEN client: %v", err)
			return
		}
		switch f.Type {
		case frame.Output:
			if sc.first == nil {
				sc.first = f.Payload
			}
			sc.emu.Write(f.Payload)
			sc.n.Add(int64(len(f.Payload)))
		case frame.Exit:
			code, _ := frame.ParseExit(f.Payload)
			sc.code = int(code)
			return
		}
	}
}

// wait waits for EXIT.
func (sc *screenClient) wait(t *testing.T) {
	t.Helper()
	select {
	case <-sc.done:
	case <-time.After(30 * time.Second):
		t.Fatal("no EXIT")
	}
}

// Clients subscribing with SUBSCRIBE_SCREEN one after another while the
// program floods all end on the session's screen, then EXIT.
func TestSubscribeScreenWhilePrinting(t *testing.T) {
	g := newGate(t)
	const cols, rows = 70, 15
	srv := startServed(t, Config{Argv: flood(g, rows, "exit 5"), Cols: cols, Rows: rows})
	waitFor(t, "the flood", 10*time.Second, func() bool { return strings.Contains(srv.sess.Screen().Text(), "status") })
	var scs []*screenClient
	for i := range 3 {
		if i > 0 {
			prev := scs[i-1]
			waitFor(t, "more output", 10*time.Second, func() bool { return prev.n.Load() > 20000 })
		}
		scs = append(scs, subscribeScreen(t, srv.sock, cols, rows))
	}
	waitFor(t, "more output", 10*time.Second, func() bool { return scs[2].n.Load() > 20000 })
	g.Open(t)
	waitDone(t, srv.sess, 20*time.Second)
	want := srv.sess.Screen()
	for i, sc := range scs {
		sc.wait(t)
		if sc.code != 5 || !bytes.HasPrefix(sc.first, []byte("\x1bc")) {
			t.Fatalf("client %d: exit code %d, first OUTPUT %q", i, sc.code, sc.first)
		}
		sameSnapshots(t, fmt.Sprintf("client %d", i), want, sc.emu.Snapshot())
	}
}

// A program on the alternate screen, redrawing it as top does: a client
// subscribing meanwhile shows its screen once the redrawing stops, and the
// main screen after it leaves the alternate one and exits.
func TestSubscribeScreenAltScreen(t *testing.T) {
	drawing, leaving := newGate(t), newGate(t)
	const cols, rows = 50, 10
	script := fmt.Sprintf(`printf 'on the main screen\r\n\033[?1049h\033[?25l'
i=0
while [ ! -e %s ]; do
  printf '\033[H\033[7m top - %%d \033[K\033[m' $i
  j=2; while [ $j -le %d ]; do printf '\033[%%d;1H\033[3%%dm%%5d proc 中\033[K' $j $((j%%8)) $((i*j)); j=$((j+1)); done
  i=$((i+1))
done
printf '\033[1;1Hstopped'
%s
printf '\033[?1049l\033[?25hback on main'`, drawing.Path(), rows, leaving.Wait())
	srv := startServed(t, Config{Argv: []string{"sh", "-c", script}, Cols: cols, Rows: rows})
	waitFor(t, "top drawing", 10*time.Second, func() bool { return strings.Contains(srv.sess.Screen().Text(), "top - ") })
	sc := subscribeScreen(t, srv.sock, cols, rows)
	waitFor(t, "output after the repaint", 10*time.Second, func() bool { return sc.n.Load() > 20000 })
	drawing.Open(t)
	waitFor(t, "the client to show the session's screen", 10*time.Second, func() bool {
		want := srv.sess.Screen()
		return strings.Contains(want.Text(), "stopped") && sameScreens(want, sc.emu.Snapshot())
	})
	leaving.Open(t)
	waitDone(t, srv.sess, 10*time.Second)
	sc.wait(t)
	want := srv.sess.Screen()
	if !strings.HasPrefix(want.Text(), "on the main screen\nback on main") {
		t.Fatalf("session's final screen:\n%s", want.Text())
	}
	sameSnapshots(t, "after leaving the alternate screen", want, sc.emu.Snapshot())
}

// SUBSCRIBE_SCREEN to a session that has exited: its final screen, then
// EXIT.
func TestSubscribeScreenAfterExit(t *testing.T) {
	srv := startServed(t, Config{Argv: []string{"sh", "-c", `printf '\033[1;33mdone\033[m\r\nbye'; exit 7`}, Cols: 20, Rows: 4})
	waitDone(t, srv.sess, 10*time.Second)
	sc := subscribeScreen(t, srv.sock, 20, 4)
	sc.wait(t)
	if sc.code != 7 {
		t.Fatalf("exit code %d", sc.code)
	}
	sameSnapshots(t, "final screen", srv.sess.Screen(), sc.emu.Snapshot())
}

// A second SUBSCRIBE or SUBSCRIBE_SCREEN on a subscribed connection changes
// nothing: the output comes once, after a repaint or after the replay,
// whichever the first asked for.
func TestSubscribeScreenOnce(t *testing.T) {
	for _, first := range []frame.Type{frame.SubscribeScreen, frame.Subscribe} {
		g := newGate(t)
		srv := startServed(t, Config{Argv: []string{"sh", "-c", "echo before; " + g.Wait() + "; echo marker-once"}})
		waitFor(t, "before", 10*time.Second, func() bool { return strings.Contains(srv.sess.Screen().Text(), "before") })
		c := dial(t, srv.sock)
		head := subscribedSync(t, c, func() error {
			for _, typ := range []frame.Type{first, frame.Subscribe, frame.SubscribeScreen, frame.SubscribeScreen} {
				if err := c.Send(typ, nil); err != nil {
					return err
				}
			}
			return nil
		})
		g.Open(t)
		rest, _ := readUntilExit(t, c, 10*time.Second)
		out := append(head, rest...)
		if n := bytes.Count(out, []byte("marker-once")); n != 1 {
			t.Fatalf("%s first: marker-once %d times in %q", first, n, out)
		}
		if repaint := bytes.HasPrefix(out, []byte("\x1bc")); repaint != (first == frame.SubscribeScreen) {
			t.Fatalf("%s first: output %q", first, tail(out))
		}
	}
}

// The repaint of a big screen goes out as OUTPUT frames of at most
// maxChunk bytes, in order; the output after it as it comes.
func TestScreenOutputSplitsTheRepaint(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	q := newOutq(a, 64<<20, nil) // net.Pipe has no raw conn: only the writer writes
	painted := make(chan struct{})
	out := screenOutput(q, painted)
	repaint := bytes.Repeat([]byte("0123456789abcdef"), (2*maxChunk+100)/16)
	out(repaint)
	select {
	case <-painted:
	default:
		t.Fatal("painted not closed after the repaint")
	}
	out([]byte("live"))
	var got [][]byte
	r := frame.NewReader(bytes.NewReader(bytes.Join(q.pending, nil)))
	for {
		f, err := r.Next()
		if err != nil {
			break
		}
		if f.Type != frame.Output || len(f.Payload) > maxChunk {
			t.Fatalf("frame %s of %d bytes", f.Type, len(f.Payload))
		}
		got = append(got, f.Payload)
	}
	if len(got) != 4 || !bytes.Equal(bytes.Join(got[:3], nil), repaint) || string(got[3]) != "live" {
		t.Fatalf("%d frames; repaint whole: %v", len(got), len(got) == 4 && bytes.Equal(bytes.Join(got[:3], nil), repaint))
	}
}

// The repaint is the first frame after SUBSCRIBE_SCREEN, even when the
// feeder takes it late (no slot is free for a while): a STATUS sent right
// after is answered after it. (A server that ignores SUBSCRIBE_SCREEN
// answers STATUS first: that is how a client tells.)
func TestSubscribeScreenRepaintFirst(t *testing.T) {
	srv := startServed(t, Config{Argv: []string{"sh", "-c", "echo ready; exec sleep 30"}})
	waitFor(t, "ready", 10*time.Second, func() bool { return strings.Contains(srv.sess.Screen().Text(), "ready") })
	c := dial(t, srv.sock)
	release := holdSlots(t, cap(emuSlots)) // the feeder cannot take the repaint yet
	if err := c.SubscribeScreen(); err != nil {
		t.Fatal(err)
	}
	if err := c.Send(frame.Status, nil); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(100*time.Millisecond, release)
	c.Conn().SetReadDeadline(time.Now().Add(10 * time.Second))
	f, err := c.Next()
	if err != nil || f.Type != frame.Output || !bytes.HasPrefix(f.Payload, []byte("\x1bc")) {
		t.Fatalf("first frame %s %q, %v; want the repaint", f.Type, f.Payload, err)
	}
	for f.Type != frame.StatusResp {
		if f, err = c.Next(); err != nil {
			t.Fatalf("no STATUS_RESP after the repaint: %v", err)
		}
	}
}
