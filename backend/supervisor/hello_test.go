package supervisor

import (
	"slices"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// HELLO is answered with the protocol version and every extension this
// server serves, echoing the request id; a HELLO with a bad payload is
// ignored (the STATUS after it is answered first).
func TestHello(t *testing.T) {
	s := startServed(t, Config{Argv: []string{"sh", "-c", "exec sleep 60"}})
	c := dial(t, s.sock)
	if err := c.Send(frame.Hello, frame.HelloPayload(0xA1B2C3D4)); err != nil {
		t.Fatal(err)
	}
	c.Conn().SetReadDeadline(time.Now().Add(10 * time.Second))
	f, err := c.Next()
	if err != nil || f.Type != frame.HelloResp {
		t.Fatalf("reply %v %v", f.Type, err)
	}
	var h frame.HelloInfo
	if err := h.UnmarshalBinary(f.Payload); err != nil {
		t.Fatal(err)
	}
	if h.Request != 0xA1B2C3D4 || h.Protocol != frame.HelloProtocol || !slices.Equal(h.Features, features) ||
		!h.Has(frame.FeatureStateView) || !h.Has(frame.FeatureWatchScreen) {
		t.Fatalf("HELLO_RESP %+v", h)
	}
	if err := c.Send(frame.Hello, []byte{1, 2}); err != nil {
		t.Fatal(err)
	}
	if st, err := c.Status(); err != nil || !st.Alive {
		t.Fatalf("STATUS after a bad HELLO: %+v %v", st, err)
	}
}

// STATE carries what a viewer shows — pid, title, size, idle time — and
// is pushed when the title or the size changes.
func TestStateView(t *testing.T) {
	s := startServed(t, Config{Argv: []string{"sh", "-c", `read a; printf '\033]0;%s\007' "$a"; exec sleep 60`}, Cols: 80, Rows: 24})
	w := dial(t, s.sock)
	if err := w.Send(frame.WatchState, nil); err != nil {
		t.Fatal(err)
	}
	first := nextState(t, w, "the first", func(frame.StateInfo) bool { return true })
	if first.PID != s.sess.PID() || first.Cols != 80 || first.Rows != 24 {
		t.Fatalf("first STATE %+v, pid %d", first, s.sess.PID())
	}
	if err := w.Input([]byte("busy build\r")); err != nil {
		t.Fatal(err)
	}
	nextState(t, w, "the title", func(si frame.StateInfo) bool { return si.Title == "busy build" })
	if err := w.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	nextState(t, w, "the size", func(si frame.StateInfo) bool { return si.Cols == 100 && si.Rows == 30 })
}

// While the program writes without changing anything else a viewer shows,
// STATE still comes (about each second), with the idle time it moved.
func TestStateViewIdleTime(t *testing.T) {
	s := startServed(t, Config{Argv: []string{"sh", "-c", "while :; do echo tick; sleep 0.05; done"}})
	w := dial(t, s.sock)
	if err := w.Send(frame.WatchState, nil); err != nil {
		t.Fatal(err)
	}
	nextState(t, w, "the first", func(frame.StateInfo) bool { return true })
	for i := 0; i < 2; i++ {
		if si := nextState(t, w, "another, the program still writing", func(frame.StateInfo) bool { return true }); si.IdleMs > 1000 {
			t.Fatalf("STATE %+v while the program writes every 50 ms", si)
		}
	}
}
