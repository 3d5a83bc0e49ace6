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
//   - attach needs CapAttach, resize needs CapScreen, restart CapRestart,
//     interrupt CapInterrupt:
//     "attach: t-1 is a headless session: it has no terminal";
//   - a dead session cannot be attached to, sent to, interrupted, resized
//     or killed;
//   - a running one cannot be removed;
//   - an answer needs a session that can be answered (CapAnswer) and waits
//     for input.
//
// Liveness is checked before capabilities: a dead session's refusal says
// how to get it back (R) or rid of it (d).
func Check(a Action, in session.Info) error {
	switch a := a.(type) {
	case Attach:
		if !in.Alive {
			return fmt.Errorf("%s %s; R restarts it", in.ID, ended(in))
		}
		return need(a, in, session.CapAttach)
	case Send, OpenSend:
		if !in.Alive {
			return fmt.Errorf("%s %s", in.ID, ended(in))
		}
	case Resize, OpenResize:
		if !in.Alive {
			return fmt.Errorf("%s has exited", in.ID)
		}
		return need(a, in, session.CapScreen)
	case Kill:
		if !in.Alive && !in.Lost {
			return fmt.Errorf("%s has already exited (code %d); d removes it", in.ID, in.ExitCode)
		}
		if !in.Alive {
			return fmt.Errorf("%s %s; d removes it", in.ID, ended(in))
		}
	case Remove:
		if in.Alive {
			return fmt.Errorf("%s is running; kill it first (x)", in.ID)
		}
	case Restart:
		return need(a, in, session.CapRestart)
	case Park:
		if !in.Alive {
			return fmt.Errorf("%s %s", in.ID, ended(in))
		}
		return need(a, in, session.CapScreen)
	case ContinueAfter:
		if !in.Alive {
			return fmt.Errorf("%s %s", in.ID, ended(in))
		}
		if !in.Limited {
			return fmt.Errorf("continue: no usage limit stopped %s", in.ID)
		}
		if in.LimitReset.IsZero() {
			return fmt.Errorf("continue: %s's limit did not say when it resets", in.ID)
		}
	case OpenDiff:
		return need(a, in, session.CapScreen) // a pty session: its record keeps the baseline
	case Interrupt:
		if !in.Alive {
			return fmt.Errorf("%s %s", in.ID, ended(in))
		}
		return need(a, in, session.CapInterrupt)
	case Answer, OpenAnswerText:
		if !in.Alive {
			return fmt.Errorf("%s %s", in.ID, ended(in))
		}
		if err := need(a, in, session.CapAnswer); err != nil {
			return err
		}
		if !in.NeedsInput {
			return fmt.Errorf("answer: %s is not waiting for an answer", in.ID)
		}
	}
	return nil
}

// need refuses a when in lacks any of caps, saying what the session is
// and what it has not.
func need(a Action, in session.Info, caps session.Caps) error {
	lacks := in.Caps.Lacks(caps)
	if lacks == "" {
		return nil
	}
	return fmt.Errorf("%s: %s is %s: it %s", Verb(a), in.ID, in.Kind.Describe(), lacks)
}

// ended says how a session that is not alive ended.
func ended(in session.Info) string {
	if in.Lost {
		return "was lost with its supervisor"
	}
	return fmt.Sprintf("has exited (code %d)", in.ExitCode)
}
