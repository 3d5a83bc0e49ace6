package supervisor

import (
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// Each domain state has the byte the seed's STATUS_RESP names, and reads
// back as itself; a byte no state has reads as Active.
func TestWireStates(t *testing.T) {
	want := map[session.State]byte{
		session.Idle: 0x00, session.Thinking: 0x01, session.Streaming: 0x02,
		session.ToolUse: 0x03, session.Active: 0x04, session.Dead: 0xFF,
	}
	for s, b := range want {
		if got := WireState(s); byte(got) != b {
			t.Errorf("WireState(%v) = %#x, want %#x", s, byte(got), b)
		}
		if back := StateFromWire(frame.State(b)); back != s {
			t.Errorf("StateFromWire(%#x) = %v, want %v", b, back, s)
		}
		if s.String() != frame.State(b).String() {
			t.Errorf("names differ: %q vs %q", s, frame.State(b))
		}
	}
	if got := StateFromWire(0x42); got != session.Active {
		t.Errorf("unknown byte reads %v, want Active", got)
	}
	st := session.Status{PID: 7, Alive: true, State: session.ToolUse, StateFor: 1500 * time.Millisecond, Idle: 20 * time.Millisecond}
	if back := StatusFromWire(WireStatus(st)); back != st {
		t.Errorf("status round trip: %+v, want %+v", back, st)
	}
}
