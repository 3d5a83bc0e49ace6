package supervisor

import (
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// daQuery asks for DA1 in raw mode and prints what came back within 1 s.
func daQuery(g gate) []string {
	return []string{"bash", "-c", g.Wait() + `; stty raw -echo; printf '\e[c'; IFS= read -r -s -t 1 -d c x; printf '\r\nreply[%q]\r\n' "$x"; exec sleep 30`}
}

// With nobody attached the emulator answers the program's queries; while an
// interactive terminal is attached (in-process, or ATTACH over the socket)
// it leaves them to that terminal, so the program never gets two replies.
func TestQueryRepliesOnlyWithoutTerminal(t *testing.T) {
	const answered, unanswered = `reply[$'\E[?`, "reply['']"
	cases := []struct {
		name  string
		setup func(t *testing.T, s *served, c *frame.Client)
		want  string
	}{
		{"unattached", func(*testing.T, *served, *frame.Client) {}, answered},
		{"attached over the socket", func(t *testing.T, _ *served, c *frame.Client) {
			if err := c.Send(frame.Attach, nil); err != nil {
				t.Fatal(err)
			}
			subscribeSync(t, c) // frames are handled in order: ATTACH is in effect
		}, unanswered},
		{"released", func(_ *testing.T, s *served, _ *frame.Client) {
			s.sess.TerminalAttached()() // attached, then gone
		}, answered},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := newGate(t)
			s := startServed(t, Config{Argv: daQuery(g)})
			c := dial(t, s.sock)
			subscribeSync(t, c)
			tc.setup(t, s, c)
			g.Open(t)
			if out := readUntil(t, c, "]\r\n", 10*time.Second); !strings.Contains(string(out), tc.want) {
				t.Fatalf("program read %q, want %s", out, tc.want)
			}
		})
	}
}
