package fleet

import (
	"bytes"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// fullScreen is a 120x35 emulator every row of which has coloured text
// and wide characters.
func fullScreen() *vt.Emulator {
	e := vt.New(120, 35, vt.Options{})
	for y := range 35 {
		fmt.Fprintf(e, "\x1b[%d;1H\x1b[38;5;%dm⏺ Read(backend/file%02d.go)\x1b[m 中文 \x1b[1m%s\x1b[m", y+1, 100+y, y, strings.Repeat("·", 40+y%20))
	}
	return e
}

// A PAINT drawn in the dashboard shows the supervisor's screen, with its
// number as the snapshot's Seq, into the memory of the last one.
func TestPaintingDraws(t *testing.T) {
	e := fullScreen()
	p := e.Painting()
	pt := painting{h: frame.PaintHeader{Cols: uint16(p.Cols), Rows: uint16(p.Rows), Seq: 42}, b: p.Bytes}
	var dst *vt.Snapshot
	for range 2 { // the second into the first's memory, on a used emulator
		dst = pt.draw(dst)
		if got, want := dst.Text(), e.Snapshot().Text(); got != want || dst.Seq != 42 || dst.Cols != 120 {
			t.Fatalf("drawn %dx%d seq %d:\n%s\nwant:\n%s", dst.Cols, dst.Rows, dst.Seq, got, want)
		}
	}
	small := vt.New(20, 3, vt.Options{})
	small.Write([]byte("\x1b]0;t\x07hi"))
	sp := small.Painting()
	s := painting{h: frame.PaintHeader{Cols: 20, Rows: 3}, b: sp.Bytes}.draw(dst)
	if s.Text() != "hi" || s.Title != "t" || s.Cols != 20 || s.Rows != 3 {
		t.Fatalf("a smaller screen on the same emulator: %dx%d %q %q", s.Cols, s.Rows, s.Title, s.Text())
	}
}

// paintReader joins the pieces of a PAINT, and refuses a piece of another
// screen, a repaint over its bound and a short payload, starting afresh
// after each.
func TestPaintReader(t *testing.T) {
	h := frame.PaintHeader{Cols: 80, Rows: 24, Seq: 9}
	piece := func(more bool, b string) []byte {
		h := h
		h.More = more
		return frame.AppendPaint(nil, h, []byte(b))
	}
	r := paintReader{max: 8}
	join := func(payloads ...[]byte) (painting, bool, error) {
		t.Helper()
		for i, p := range payloads {
			pt, done, err := r.add(p)
			if i < len(payloads)-1 && (done || err != nil) {
				t.Fatalf("piece %d: done %v, %v", i, done, err)
			}
			if i == len(payloads)-1 {
				return pt, done, err
			}
		}
		panic("no payloads")
	}
	if p, done, err := join(piece(true, "ab"), piece(true, ""), piece(false, "cd")); !done || err != nil || string(p.b) != "abcd" || p.h.Seq != 9 || p.h.More {
		t.Fatalf("joined %+v %q %v %v", p.h, p.b, done, err)
	}
	if p, done, err := join(piece(false, "xyz")); !done || err != nil || string(p.b) != "xyz" {
		t.Fatalf("one piece: %q %v %v", p.b, done, err)
	}
	other := h
	other.Seq = 10
	if _, _, err := join(piece(true, "ab"), frame.AppendPaint(nil, other, []byte("cd"))); err == nil {
		t.Fatal("a piece of another screen joined")
	}
	if _, _, err := join(piece(true, "abcd"), piece(true, "efgh"), piece(false, "i")); err == nil {
		t.Fatal("9 bytes joined under a bound of 8")
	}
	if _, _, err := join(piece(true, "ab"), []byte{1, 2}); err == nil {
		t.Fatal("a short payload taken")
	}
	if p, done, err := join(piece(false, "abcdefgh")); !done || err != nil || string(p.b) != "abcdefgh" || r.buf != nil {
		t.Fatalf("after the errors: %q %v %v (held %d)", p.b, done, err, len(r.buf))
	}
}

// A stream of PAINT payloads: what paintReader returns is the pieces since
// the last painting or error, joined, never more than its bound; it holds
// no more than that meanwhile.
func FuzzPaintReader(f *testing.F) {
	h := frame.PaintHeader{Cols: 10, Rows: 2, More: true, Seq: 1}
	var seed []byte
	for _, b := range []string{"ab", "cd"} {
		seed = frame.AppendFrame(seed, frame.Paint, frame.AppendPaint(nil, h, []byte(b)))
	}
	h.More = false
	seed = frame.AppendFrame(seed, frame.Paint, frame.AppendPaint(nil, h, []byte("e")))
	f.Add(seed)
	f.Add(frame.AppendFrame(seed, frame.Paint, []byte{0, 1}))
	h.Seq, h.More = 2, true
	f.Add(frame.AppendFrame(seed, frame.Paint, frame.AppendPaint(nil, h, []byte("0123456789abcdef0123456789abcdef!"))))
	const most = 32
	f.Fuzz(func(t *testing.T, in []byte) {
		frames := frame.NewReader(bytes.NewReader(in))
		r := paintReader{max: most}
		var since []byte // the pieces since the last painting or error
		for {
			fr, err := frames.Next()
			if err != nil {
				return
			}
			_, piece, perr := frame.ParsePaint(fr.Payload)
			piece = bytes.Clone(piece)
			p, done, err := r.add(fr.Payload)
			switch {
			case err != nil:
				since = nil
			case perr != nil:
				t.Fatalf("a bad payload taken: %v", perr)
			case done:
				if want := append(since, piece...); !bytes.Equal(p.b, want) || len(p.b) > most {
					t.Fatalf("joined %q, want %q (bound %d)", p.b, want, most)
				}
				since = nil
			default:
				since = append(since, piece...)
			}
			if len(r.buf) > most || !bytes.Equal(r.buf, since) {
				t.Fatalf("holds %q, the pieces were %q", r.buf, since)
			}
		}
	})
}

// A supervisor that sends one PAINT's pieces without end is disconnected
// once they pass maxPaint: the session is dropped, the dashboard goes on.
func TestEndlessPaintDisconnects(t *testing.T) {
	dir := shortDir(t)
	f := newFleet(t, dir)
	r := record(t, f)
	serveSocket(t, supervisor.SocketPath(dir, "bad"), serveEndlessPaint)
	r.Wait(t, session.Added, "bad", 0)
	r.Wait(t, session.Removed, "bad", 0)
	if _, ok := info(f, "bad"); ok {
		t.Fatal("the session is still listed")
	}
}

// serveEndlessPaint answers as serveOlder does, HELLO and WATCH_STATE as
// a current supervisor does (answerHello), and the first WATCH_SCREEN with
// a PAINT, then with pieces of the next one, each marked More, up to twice
// maxPaint.
func serveEndlessPaint(c net.Conn) {
	h := frame.PaintHeader{Cols: 80, Rows: 24, Seq: 1}
	serveFake(c, true, func(fr frame.Frame) {
		if answerHello(c, fr) {
			return
		}
		if fr.Type != frame.WatchScreen || h.Seq > 1 {
			return
		}
		frame.Write(c, frame.Paint, frame.AppendPaint(nil, h, []byte("\x1bchello")))
		h.Seq, h.More = 2, true
		p := frame.AppendPaint(nil, h, make([]byte, 64<<10))
		for n := 0; n < 2*maxPaint; n += len(p) {
			if frame.Write(c, frame.Paint, p) != nil {
				return
			}
		}
	})
}

// BenchmarkPaintDraw is what a pane's pull costs the dashboard: drawing a
// full 120x35 screen's PAINT into the last snapshot's memory.
func BenchmarkPaintDraw(b *testing.B) {
	p := fullScreen().Painting()
	pt := painting{h: frame.PaintHeader{Cols: uint16(p.Cols), Rows: uint16(p.Rows)}, b: p.Bytes}
	dst := pt.draw(nil)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		dst = pt.draw(dst)
	}
	b.ReportMetric(float64(len(p.Bytes)), "bytes/paint")
}

// answerHello answers fr as a current supervisor of an idle 80x24 session
// does if it is a HELLO (with every feature a follower needs) or a
// WATCH_STATE (a STATE), and reports whether it was one of them.
func answerHello(c net.Conn, fr frame.Frame) bool {
	switch fr.Type {
	case frame.Hello:
		id, _ := frame.ParseHello(fr.Payload)
		b, _ := frame.HelloInfo{Request: id, Protocol: frame.HelloProtocol,
			Features: []string{frame.FeatureWatchState, frame.FeatureStateView, frame.FeatureWatchScreen}}.MarshalBinary()
		frame.Write(c, frame.HelloResp, b)
	case frame.WatchState:
		b, _ := frame.StateInfo{State: "Idle", PID: 1, Cols: 80, Rows: 24}.MarshalBinary()
		frame.Write(c, frame.StateEvent, b)
	default:
		return false
	}
	return true
}
