package action

import (
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

func TestCheck(t *testing.T) {
	pty := session.Info{ID: "claude-1", Kind: session.KindPty, Alive: true,
		Caps: session.CapScreen | session.CapAttach | session.CapRestart}
	dead := pty
	dead.ID, dead.Alive, dead.ExitCode = "build", false, 2
	headless := session.Info{ID: "transcript-1", Kind: session.KindHeadless, Alive: true, Caps: session.CapTranscript | session.CapInterrupt}
	external := pty
	external.ID, external.Caps = "ext", session.CapScreen|session.CapAttach // argv unknown: no restart
	screenOnly := pty
	screenOnly.ID, screenOnly.Caps = "view", session.CapScreen
	for _, c := range []struct {
		a    Action
		in   session.Info
		want string // "" = allowed
	}{
		{Attach{ID: "claude-1"}, pty, ""},
		{Resize{ID: "claude-1"}, pty, ""},
		{OpenResize{ID: "claude-1"}, pty, ""},
		{Restart{ID: "claude-1"}, pty, ""},
		{Kill{ID: "claude-1"}, pty, ""},
		{Send{ID: "claude-1"}, pty, ""},
		{Remove{ID: "claude-1"}, pty, "claude-1 is running; kill it first (x)"},

		{Attach{ID: "transcript-1"}, headless, "attach: transcript-1 is a headless Claude session: it has no terminal"},
		{Resize{ID: "transcript-1"}, headless, "resize: transcript-1 is a headless Claude session: it has no terminal"},
		{OpenResize{ID: "transcript-1"}, headless, "resize: transcript-1 is a headless Claude session: it has no terminal"},
		{Restart{ID: "transcript-1"}, headless, "restart: transcript-1 is a headless Claude session: it cannot be restarted"},
		{OpenSend{ID: "transcript-1"}, headless, ""},
		{Kill{ID: "transcript-1", Force: true}, headless, ""},

		{Restart{ID: "ext"}, external, "restart: ext is a pty session: it cannot be restarted"},
		{Attach{ID: "view"}, screenOnly, "attach: view is a pty session: it cannot be attached to"},
		{Attach{ID: "x"}, session.Info{ID: "x", Alive: true}, "attach: x is an unknown session: it has no terminal"},

		{Attach{ID: "build"}, dead, "build has exited (code 2); R restarts it"},
		{Send{ID: "build"}, dead, "build has exited (code 2)"},
		{OpenSend{ID: "build"}, dead, "build has exited (code 2)"},
		{Resize{ID: "build"}, dead, "build has exited"},
		{Kill{ID: "build"}, dead, "build has already exited (code 2); d removes it"},
		{Remove{ID: "build"}, dead, ""},
		{Restart{ID: "build"}, dead, ""},

		{Mode{Name: "grid"}, headless, ""},
	} {
		err := Check(c.a, c.in)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("Check(%#v, %s) = %q, want %q", c.a, c.in.ID, got, c.want)
		}
	}
}

func TestTargetAndVerb(t *testing.T) {
	for _, c := range []struct {
		a        Action
		id, verb string
	}{
		{Kill{ID: "a", Force: true}, "a", "kill!"},
		{OpenSend{ID: "b"}, "b", "send"},
		{Attach{ID: "c"}, "c", "attach"},
		{Mode{Name: "zoom"}, "", "action.Mode"},
	} {
		if id, verb := Target(c.a), Verb(c.a); id != c.id || verb != c.verb {
			t.Errorf("%#v: Target %q Verb %q, want %q %q", c.a, id, verb, c.id, c.verb)
		}
	}
}
