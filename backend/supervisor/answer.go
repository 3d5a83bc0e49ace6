package supervisor

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/answer"
	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// typingWindow: keys written this recently, without an Enter after them,
// mean someone is typing into the session; an answer then is refused
// rather than mixed into what they type.
const typingWindow = 2 * time.Second

// dialogWait bounds how long Answer waits for the dialog of a session
// that says it waits for input (an agent's hook reports the prompt a
// moment before the agent draws it) to show on its screen.
const dialogWait = 2 * time.Second

// awaitDialog waits, within dialogWait, until the screen shows a dialog
// while the session says it needs input; it returns at once otherwise.
func (s *Session) awaitDialog() {
	for deadline := time.Now().Add(dialogWait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := s.Prompt(); !errors.Is(err, answer.ErrNoDialog) || !s.NeedsInput() {
			return
		}
		select {
		case <-s.done:
			return
		default:
		}
	}
}

// Prompt is the dialog the screen shows now, as Answer reads it.
func (s *Session) Prompt() (answer.Prompt, error) {
	snap := s.Screen()
	return answer.Read(s.cls.Name(), classify.Screen{Lines: snap.Lines(), Title: snap.Title, CursorY: snap.Cursor.Y})
}

// Answer gives choice to the dialog the screen shows, in one step under the
// pty's write lock: nothing is written unless the classifier's rules read
// a dialog it can answer on the screen now (asking question, if that is
// not ""), the choice names one of its options, and nobody is typing into
// the session (keys without an Enter after them, within the typing
// window). The keys written are the agent's
// own (answer.Prompt.Keys).
func (s *Session) Answer(choice answer.Choice, question string) (answer.Given, error) {
	if err := choice.Check(); err != nil {
		return answer.Given{}, err
	}
	select {
	case <-s.done:
		return answer.Given{}, ErrExited
	default:
	}
	s.awaitDialog()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if at := s.typed.Load(); at != 0 && time.Since(time.Unix(0, at)) < typingWindow {
		ago := time.Since(time.Unix(0, at))
		return answer.Given{}, fmt.Errorf("someone is typing into the session (a key %v ago): not answering over them (attach to answer it yourself)", ago.Round(100*time.Millisecond))
	}
	p, err := s.Prompt()
	if err != nil {
		return answer.Given{}, err
	}
	if question != "" && p.Question != question {
		return answer.Given{}, fmt.Errorf("the screen no longer shows that prompt (it asks %q)", p.Question)
	}
	keys, n, err := p.Keys(choice)
	if err != nil {
		return answer.Given{}, err
	}
	s.mu.Lock()
	s.cls.Asked(time.Now()) // once the screen moves on, the question is answered
	s.mu.Unlock()
	if _, err := s.pty.wr.Write(keys); err != nil {
		return answer.Given{}, err
	}
	s.log.Info("answered", "option", n, "question", p.Question)
	return answer.Given{Option: n, Label: p.Labels[n-1], Question: p.Question}, nil
}

// ErrBusy is Say's error while the agent is not waiting at its prompt or
// someone is typing into the session: the prompt may be sent later.
var ErrBusy = errors.New("busy")

// Say types text into the agent as one prompt, then Enter, in one step
// under the pty's write lock — only while the session is Idle without a
// dialog (waiting at its prompt) and nobody is typing into it (else an
// error wrapping ErrBusy says why). Several lines go as one bracketed
// paste when the program asked for them (DECSET 2004, as agents' prompts
// do), else joined by spaces: a newline would be Enter.
func (s *Session) Say(text string) error {
	select {
	case <-s.done:
		return ErrExited
	default:
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if at := s.typed.Load(); at != 0 && time.Since(time.Unix(0, at)) < typingWindow {
		return fmt.Errorf("%w: someone is typing into the session", ErrBusy)
	}
	s.mu.Lock()
	drawn := !s.lastOut.IsZero()
	s.mu.Unlock()
	if !drawn {
		return fmt.Errorf("%w: it has not drawn its prompt yet", ErrBusy)
	}
	if st := s.Status(); st.State != session.Idle {
		return fmt.Errorf("%w: it is %s, not waiting at its prompt", ErrBusy, st.State)
	}
	if s.NeedsInput() {
		return fmt.Errorf("%w: it asks a question first", ErrBusy)
	}
	var b []byte
	if s.Screen().Modes.BracketedPaste {
		b = append(append(append(b, "\x1b[200~"...), text...), "\x1b[201~"...)
	} else {
		b = append(b, strings.Join(strings.Fields(text), " ")...)
	}
	b = append(b, '\r')
	if _, err := s.pty.wr.Write(b); err != nil {
		return err
	}
	s.log.Info("prompt typed", "bytes", len(text))
	return nil
}
