package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/heimdall-tui/heimdall-tui/backend/headless"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// HeadlessSpec is a session of an event-driven kind the dashboard opens:
// a headless Claude session (Kind "" or session.KindHeadless: Blemees),
// or a heddle worker (session.KindHeddle: Heddle, which takes ID, Dir,
// Model and SystemPrompt). Openers routes it by Kind.
type HeadlessSpec struct {
	Kind session.Kind
	// ID is the fleet ID ("": "claude-" and the session id's first 8
	// characters).
	ID             string
	Dir            string // working directory ("": the dashboard's)
	Model          string // --model ("": claude's default)
	PermissionMode string // --permission-mode ("": claude's default)
	SystemPrompt   string // --system-prompt ("": none)
}

// fleetID is the fleet ID of headless session sid.
func fleetID(sid string) string {
	if len(sid) > 8 {
		sid = sid[:8]
	}
	return "claude-" + sid
}

// addHeadless lists headless session sid under name (the one it was
// opened with, if kept), else its fleetID, else its full id, the first
// not taken.
func addHeadless(f *Fleet, sid, name string, start StartFunc) error {
	if name != "" {
		if err := f.Add(name, start); err == nil || errors.Is(err, ErrClosed) {
			return err
		}
	}
	err := f.Add(fleetID(sid), start)
	if err != nil && !errors.Is(err, ErrClosed) {
		err = f.Add(sid, start)
	}
	return err
}

// claudeView is the claude mapping of an eventView: claude's events (of
// a session followed on a blemeesd, blemeesMember) as view operations.
// Entries: each user turn — entered when sent from the dashboard, and
// as claude echoes it in sessions opened with replay_user_messages (the
// dashboard opens its own so: a dashboard that comes back, or watches,
// shows them; another client's turns in sessions opened without it are
// not in claude's output, so they are not shown); each completed
// assistant message's text; each tool call (name and JSON
// arguments) and tool result; the session's notices (start, stderr,
// crash, interrupt, a failed or denied turn).
//
// The view also keeps the session's state from the stream (a followed
// session cannot be asked), as headless.Line reads it: Thinking,
// Streaming or ToolUse as the stream events say; Idle after the result,
// a crash or an interrupt. headless.Line is the one interpreter of
// claude's events, the daemon's too.
type claudeView struct {
	*eventView
	// turnMu orders a turn the dashboard sends before the events it
	// causes: sendTurn holds it from the send until the turn is entered,
	// and feed takes it, so a reply read and queued before the send
	// returned is still fed after the user's message (not above it, with
	// the state then set back to busy after the turn's end).
	turnMu sync.Mutex
	// guarded by eventView.mu
	lastSeq uint64
	inits   int
	model   string
}

// sendTurn sends a user turn with send and, if it went, enters it and
// sets the state to state() (read after the send). It reports the entry's
// seq and whether the state changed.
func (v *claudeView) sendTurn(text string, send func() error, state func() session.State) (seq uint64, changed bool, err error) {
	v.turnMu.Lock()
	defer v.turnMu.Unlock()
	if err := send(); err != nil {
		return 0, false, err
	}
	seq = v.userTurn(text)
	v.mu.Lock()
	if len(v.sent) == maxUnechoed {
		v.sent = v.sent[1:] // a claude that does not echo: the oldest would never be matched
	}
	v.sent = append(v.sent, text)
	v.mu.Unlock()
	return seq, v.setState(state()), nil
}

// maxUnechoed bounds the user turns a view waits to see echoed.
const maxUnechoed = 16

func newClaudeView(sid string) *claudeView {
	return &claudeView{eventView: newEventView(sid, session.KindHeadless, "claude", []string{"claude", "-p"})}
}

// seen is the seq of the last event handled.
func (v *claudeView) seen() uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.lastSeq
}

// feed handles evs in order; replays of events the view has are skipped.
func (v *claudeView) feed(evs []headless.Event) fed {
	v.turnMu.Lock()
	defer v.turnMu.Unlock()
	v.mu.Lock()
	defer v.mu.Unlock()
	var d fed
	for _, ev := range evs {
		if ev.Seq != 0 {
			if ev.Seq <= v.lastSeq {
				continue // a replay of what the view has
			}
			v.lastSeq = ev.Seq
		}
		e := v.applyLocked(v.ops(ev))
		d.dirty, d.changed, d.turnDone = d.dirty || e.dirty, d.changed || e.changed, d.turnDone || e.turnDone
		d.fails = append(d.fails, e.fails...)
	}
	return d
}

// ops maps one event (v.mu held).
func (v *claudeView) ops(ev headless.Event) []viewOp {
	switch ev.Kind {
	case headless.EventStderr:
		return []viewOp{{kind: opNotice, text: "stderr: " + ev.Text}}
	case headless.EventCrashed:
		return []viewOp{{kind: opProblem, text: "claude crashed: " + ev.Text, problem: "claude crashed", isErr: true,
			err: fmt.Errorf("%s: claude crashed: %s", v.sid, ev.Text)}, {kind: opDiscard}, {kind: opState, state: session.Idle}}
	case headless.EventFault:
		// A claude that does not speak stream-json will not end its turn:
		// the view ends it, in error, and shows what it wrote.
		return []viewOp{{kind: opProblem, text: ev.Text, problem: "claude's output is not JSON", isErr: true,
			err: fmt.Errorf("%s: %s", v.sid, ev.Text)}, {kind: opDiscard}, {kind: opState, state: session.Idle}}
	case headless.EventOAuthExpired:
		return []viewOp{{kind: opProblem, text: headless.ErrOAuthExpired.Error(), problem: "OAuth token expired", err: headless.ErrOAuthExpired}}
	case headless.EventInterrupted:
		var ops []viewOp
		if !ev.WasIdle {
			ops = append(ops, viewOp{kind: opNotice, text: "interrupted"})
		}
		return append(ops, viewOp{kind: opDiscard}, viewOp{kind: opState, state: session.Idle})
	case headless.EventReplayGap:
		return []viewOp{{kind: opNotice, text: fmt.Sprintf("events %d to %d are no longer kept", ev.Since+1, ev.First-1)}}
	case headless.EventClaude:
		return v.claudeOps(ev.Raw)
	}
	return nil
}

// claudeOps maps a claude event (v.mu held).
func (v *claudeView) claudeOps(raw json.RawMessage) []viewOp {
	l, err := headless.ParseLine(raw)
	if err != nil {
		return nil
	}
	var ops []viewOp
	switch {
	case l.Init():
		v.inits++
		if l.Model != "" {
			v.model = l.Model
		}
		ops = append(ops, viewOp{kind: opModel, text: l.Model})
		if v.inits == 1 {
			ops = append(ops, viewOp{kind: opNotice, text: "claude started · " + v.model})
		}
		return ops
	case l.TurnStart():
		ops = append(ops, viewOp{kind: opTurnStart})
	case l.Delta() != "":
		ops = append(ops, viewOp{kind: opDelta, text: l.Delta()})
	}
	for _, it := range l.Items() {
		switch it.Kind {
		case headless.ItemUser:
			ops = append(ops, viewOp{kind: opUser, text: it.Text})
		case headless.ItemText:
			ops = append(ops, viewOp{kind: opMessage, text: it.Text})
		case headless.ItemTool:
			ops = append(ops, viewOp{kind: opTool, text: toolCall(it.Text, it.Input)})
		case headless.ItemToolResult:
			ops = append(ops, viewOp{kind: opToolResult, text: it.Text, isErr: it.IsErr})
		}
	}
	if l.Type == "assistant" {
		ops = append(ops, viewOp{kind: opDiscard})
	}
	if l.TurnEnd() {
		ops = append(ops, viewOp{kind: opTurnDone})
	}
	if st, ok := l.State(); ok {
		ops = append(ops, viewOp{kind: opState, state: st})
	}
	switch msg, failed := l.Failure(); {
	case failed:
		ops = append(ops, viewOp{kind: opProblem, text: msg, problem: "turn failed", isErr: true, err: fmt.Errorf("%s: %s", v.sid, msg)})
	case msg != "":
		ops = append(ops, viewOp{kind: opProblem, text: msg, problem: msg, err: fmt.Errorf("%s: %s", v.sid, msg)})
	}
	return ops
}

// Info implements Member.
