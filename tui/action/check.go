package action

import (
	"fmt"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// Check reports why a cannot act on the session in now, or nil when it
// can (and for actions that act on no session). The reason is the error
// the user sees; the footer shows the keys of refused actions as
// unavailable. The rules:
//
//   - attach needs CapAttach, resize needs CapScreen, restart CapRestart:
//     "attach: t-1 is a headless session: it has no terminal";
//   - a dead session cannot be attached to, sent to, resized or killed;
//   - a running one cannot be removed.
//
// Liveness is checked before capabilities: a dead session's refusal says
// how to get it back (R) or rid of it (d).
func Check(a Action, in session.Info) error {
	switch a := a.(type) {
	case Attach:
		if !in.Alive {
			return fmt.Errorf("%s has exited (code %d); R restarts it", in.ID, in.ExitCode)
		}
		return need(a, in, session.CapAttach)
	case Send, OpenSend:
		if !in.Alive {
			return fmt.Errorf("%s has exited (code %d)", in.ID, in.ExitCode)
		}
	case Resize, OpenResize:
		if !in.Alive {
			return fmt.Errorf("%s has exited", in.ID)
		}
		return need(a, in, session.CapScreen)
	case Kill:
		if !in.Alive {
			return fmt.Errorf("%s has already exited (code %d); d removes it", in.ID, in.ExitCode)
		}
	case Remove:
		if in.Alive {
			return fmt.Errorf("%s is running; kill it first (x)", in.ID)
		}
	case Restart:
		return need(a, in, session.CapRestart)
	}
	return nil
}

// need refuses a when in lacks any of caps, saying what the session is
// and what it has not.
func need(a Action, in session.Info, caps session.Caps) error {
	missing := caps &^ in.Caps
	if missing == 0 {
		return nil
	}
	kind := string(in.Kind)
	if kind == "" {
		kind = "unknown"
	}
	var lacks string
	switch {
	case missing.Has(session.CapAttach) && !in.Caps.Has(session.CapScreen),
		missing.Has(session.CapScreen):
		lacks = "it has no terminal"
	case missing.Has(session.CapAttach):
		lacks = "it cannot be attached to"
	case missing.Has(session.CapRestart):
		lacks = "it cannot be restarted"
	}
	return fmt.Errorf("%s: %s is %s %s session: %s", Verb(a), in.ID, article(kind), kind, lacks)
}

// article is "a" or "an" for word.
func article(word string) string {
	switch word[0] {
	case 'a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U':
		return "an"
	}
	return "a"
}
