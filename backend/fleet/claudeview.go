package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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
// Entries: a user turn sent from the dashboard (a socket
// client's turns are not in claude's output, so they are not shown); each
// completed assistant message's text; each tool call (name and JSON
// arguments) and tool result; the session's notices (start, stderr,
// crash, interrupt, a failed or denied turn).
//
// With streamState the view also keeps the session's state from the
// stream (a followed session cannot be asked): a turn is active from its
// first stream event to its result; Thinking, Streaming or ToolUse as the
// stream events say; Idle after the result, a crash or an interrupt.
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
	return v.userTurn(text), v.setState(state()), nil
}

func newClaudeView(sid string, streamState bool) *claudeView {
	return &claudeView{eventView: newEventView(sid, streamState, session.KindHeadless, "claude", []string{"claude", "-p"})}
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

// claudeEvent is what the view reads of a claude event.
type claudeEvent struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	Model   string `json:"model"`
	IsError bool   `json:"is_error"`
	Result  string `json:"result"`
	Message struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	Event             *headless.StreamEvent `json:"event"`
	PermissionDenials []struct {
		ToolName string `json:"tool_name"`
	} `json:"permission_denials"`
}

// block is a message content block.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	ToolUseID string          `json:"tool_use_id"`
}

// claudeOps maps a claude event (v.mu held).
func (v *claudeView) claudeOps(raw json.RawMessage) []viewOp {
	var ce claudeEvent
	if json.Unmarshal(raw, &ce) != nil {
		return nil
	}
	state := func(st session.State) viewOp { return viewOp{kind: opState, state: st} }
	// A followed session's events are the frames as read: "claude.system".
	switch strings.TrimPrefix(ce.Type, "claude.") {
	case "system":
		if ce.Subtype != "init" {
			return nil
		}
		v.inits++
		if ce.Model != "" {
			v.model = ce.Model
		}
		ops := []viewOp{{kind: opModel, text: ce.Model}}
		if v.inits == 1 {
			ops = append(ops, viewOp{kind: opNotice, text: "claude started · " + v.model})
		}
		return ops
	case "stream_event":
		if ce.Event == nil {
			return nil
		}
		switch {
		case ce.Event.Type == "message_start":
			return []viewOp{{kind: opTurnStart}, state(session.Thinking)}
		case ce.Event.Type == "content_block_start":
			switch ce.Event.ContentBlock.Type {
			case "tool_use", "server_tool_use":
				return []viewOp{state(session.ToolUse)}
			case "thinking":
				return []viewOp{state(session.Thinking)}
			}
			return []viewOp{state(session.Streaming)}
		case ce.Event.Type == "content_block_delta" && ce.Event.Delta.Type == "text_delta":
			return []viewOp{{kind: opDelta, text: ce.Event.Delta.Text}, state(session.Streaming)}
		case ce.Event.Type == "content_block_delta" && ce.Event.Delta.Type == "thinking_delta":
			return []viewOp{state(session.Thinking)}
		}
	case "assistant":
		var blocks []block
		json.Unmarshal(ce.Message.Content, &blocks)
		var ops []viewOp
		for _, b := range blocks {
			switch b.Type {
			case "text":
				if b.Text != "" {
					ops = append(ops, viewOp{kind: opMessage, text: b.Text})
				}
			case "tool_use", "server_tool_use":
				ops = append(ops, viewOp{kind: opTool, text: b.Name + " " + compactJSON(b.Input)})
			}
		}
		return append(ops, viewOp{kind: opDiscard})
	case "user": // tool results claude reports
		var blocks []block
		json.Unmarshal(ce.Message.Content, &blocks)
		var ops []viewOp
		for _, b := range blocks {
			if b.Type == "tool_result" {
				ops = append(ops, viewOp{kind: opToolResult, text: contentText(b.Content), isErr: b.IsError})
			}
		}
		return ops
	case "result":
		ops := []viewOp{{kind: opTurnDone}, state(session.Idle)}
		var denied []string
		for _, d := range ce.PermissionDenials {
			denied = append(denied, d.ToolName)
		}
		switch {
		case ce.IsError || (ce.Subtype != "" && ce.Subtype != "success"):
			msg := "turn failed: " + ce.Subtype
			if ce.Result != "" {
				msg += ": " + ce.Result
			}
			ops = append(ops, viewOp{kind: opProblem, text: msg, problem: "turn failed", isErr: true, err: fmt.Errorf("%s: %s", v.sid, msg)})
		case len(denied) > 0:
			msg := "permission denied: " + strings.Join(denied, ", ")
			ops = append(ops, viewOp{kind: opProblem, text: msg, problem: msg, err: fmt.Errorf("%s: %s", v.sid, msg)})
		}
		return ops
	}
	return nil
}

// compactJSON is a tool call's arguments on one line.
func compactJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// contentText is a tool result's content: a string, or its text blocks.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []block
	json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Info implements Member.
