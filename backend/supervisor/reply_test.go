package supervisor

import (
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// daQuery asks for DA1 in raw mode and prints what came back within 1 s.
func daQuery(g gate) []string {
	return []string{"bash", "-c", g.wait() + `; stty raw -echo; printf '\e[c'; IFS= read -r -s -t 1 -d c x; printf '\r\nreply[%q]\r\n' "$x"; exec sleep 30`}
}

// With nobody attached the emulator answers the program's queries; while an
// interactive terminal is attached (in-process, or ATTACH over the socket)
// it leaves them to that terminal, so the program never gets two replies.
func TestQueryRepliesOnlyWithoutTerminal(t *testing.T) {
	t.Run("unattached", func(t *testing.T) {
		g := newGate(t)
		s := startServed(t, Config{Argv: daQuery(g)})
		c := dial(t, s.sock)
		subscribeSync(t, c)
		g.open(t)
		out := readUntil(t, c, "]\r\n", 10*time.Second)
		if !strings.Contains(string(out), `reply[$'\E[?`) {
			t.Fatalf("no DA1 reply reached the program: %q", out)
		}
	})
	t.Run("attached over the socket", func(t *testing.T) {
		g := newGate(t)
		s := startServed(t, Config{Argv: daQuery(g)})
		c := dial(t, s.sock)
		subscribeSync(t, c)
		if err := c.Send(frame.Attach, nil); err != nil {
			t.Fatal(err)
		}
		subscribeSync(t, c) // frames are handled in order: ATTACH is in effect
		g.open(t)
		out := readUntil(t, c, "]\r\n", 10*time.Second)
		if !strings.Contains(string(out), "reply['']") {
			t.Fatalf("the emulator answered although a terminal is attached: %q", out)
		}
	})
	t.Run("released", func(t *testing.T) {
		g := newGate(t)
		s := startServed(t, Config{Argv: daQuery(g)})
		s.sess.TerminalAttached()() // attached, then gone
		c := dial(t, s.sock)
		subscribeSync(t, c)
		g.open(t)
		out := readUntil(t, c, "]\r\n", 10*time.Second)
		if !strings.Contains(string(out), `reply[$'\E[?`) {
			t.Fatalf("no reply after the terminal detached: %q", out)
		}
	})
}
