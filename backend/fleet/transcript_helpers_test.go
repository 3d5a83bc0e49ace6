package fleet_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

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
