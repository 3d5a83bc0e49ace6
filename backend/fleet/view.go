package fleet

import (
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// eventView is what a member of an event-driven kind shows of its
// session — transcript entries, a title, and its state, all from its
// events — built from a neutral set of operations
// (viewOp). Each kind maps its own events to these: the claude mapping
// (claudeView, for headless Claude sessions followed on a blemeesd) and the heddle
// mapping (heddleOps). So every such kind shows a conversation the same
// way, and a new kind writes a mapping, not a view.
//
// Transcript entries are numbered by the view, from 1, and never change
// once entered: a streaming assistant message is entered once complete
// (opMessage, or opFlush of the streamed text); while it streams its tail
// is shown in the title (a Changed report). A turn's failure stays in the
// title until the next turn; a heartbeat's "working for Ns" while a turn
// runs and nothing streams.
type eventView struct {
	sid   string
	kind  session.Kind
	agent string
	argv  []string

	mu         sync.Mutex
	entries    []session.Entry
	state      session.State
	stateSince time.Time
	lastOutput time.Time
	partial    strings.Builder // the streaming assistant message's text
	problem    string          // the last turn's failure, shown in the title
	failure    string          // the failure that ended the last turn (Info.Error), until the next
	working    time.Duration   // the turn's running time, from heartbeats
	model      string
	// sent are the user turns entered when sent from here whose echo
	// has not come yet (opUser), oldest first (claudeView.sendTurn).
	sent []string
}

func newEventView(sid string, kind session.Kind, agent string, argv []string) *eventView {
	return &eventView{sid: sid, kind: kind, agent: agent, argv: argv, stateSince: time.Now()}
}

// opKind is what a viewOp does.
type opKind uint8

const (
	opModel      opKind = iota // the session's model is text (the title's start)
	opNotice                   // a system entry: text
	opProblem                  // a system entry text; title says problem; the user is told err (if not nil); isErr: it ended the turn (Info.Error)
	opTurnStart                // a turn begins: streamed text and the last problem are cleared
	opDelta                    // text streams in (the title's tail)
	opDiscard                  // the streamed text is dropped (an interrupt, a crash)
	opMessage                  // a complete assistant message: text (entered if not ""); the streamed text is cleared; with final, not if the last entry is that answer (it streamed)
	opFlush                    // the streamed text so far is a complete assistant message
	opTool                     // a tool call: text is its name and arguments
	opToolResult               // a tool's result: text ("→ error: " when isErr)
	opAssistant                // an assistant entry that is not streamed (a plan)
	opWorking                  // the turn has run for dur (a heartbeat)
	opState                    // the stream says the state is state
	opTurnDone                 // the turn ended (the member reports usage)
	opUser                     // a user turn the agent echoes: text (entered unless it is the oldest one sent from here, which was entered when sent)
)

// viewOp is one operation on an eventView.
type viewOp struct {
	kind    opKind
	text    string
	problem string
	err     error
	isErr   bool
	final   bool
	state   session.State
	dur     time.Duration
}

// fed is what applying operations did.
type fed struct {
	dirty, changed, turnDone bool
	fails                    []error
}

// apply carries out ops in order.
func (v *eventView) apply(ops []viewOp) fed {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.applyLocked(ops)
}

// applyLocked is apply with v.mu held.
func (v *eventView) applyLocked(ops []viewOp) fed {
	var d fed
	n := len(v.entries)
	for _, op := range ops {
		switch op.kind {
		case opModel:
			if op.text != "" && op.text != v.model {
				v.model, d.changed = op.text, true
			}
		case opNotice:
			v.addLocked(session.RoleSystem, op.text)
		case opProblem:
			if op.text != "" {
				v.addLocked(session.RoleSystem, op.text)
			}
			v.problem, d.changed = op.problem, true
			if op.isErr {
				v.failure = op.problem
			}
			if op.err != nil {
				d.fails = append(d.fails, op.err)
			}
		case opTurnStart:
			v.partial.Reset()
			v.problem, v.failure, v.working, d.changed = "", "", 0, true
		case opDelta:
			v.partial.WriteString(op.text)
			d.changed = true
		case opDiscard:
			v.partial.Reset()
			d.changed = true
		case opMessage:
			if n := len(v.entries); op.final && n > 0 && v.entries[n-1].Role == session.RoleAssistant && v.entries[n-1].Text == op.text {
				v.partial.Reset()
				break // the answer streamed and was entered already (opFlush)
			}
			if op.text != "" {
				v.addLocked(session.RoleAssistant, op.text)
			}
			v.partial.Reset()
			d.changed = true
		case opFlush:
			if v.partial.Len() > 0 {
				v.addLocked(session.RoleAssistant, v.partial.String())
				v.partial.Reset()
				d.changed = true
			}
		case opTool:
			v.addLocked(session.RoleTool, op.text)
		case opToolResult:
			prefix := "→ "
			if op.isErr {
				prefix = "→ error: "
			}
			v.addLocked(session.RoleTool, prefix+op.text)
		case opAssistant:
			v.addLocked(session.RoleAssistant, op.text)
		case opUser:
			if len(v.sent) > 0 && v.sent[0] == op.text {
				v.sent = v.sent[1:]
				break
			}
			v.addLocked(session.RoleUser, op.text)
		case opWorking:
			v.working, d.changed = op.dur, true
		case opState:
			if v.setStateLocked(op.state) {
				d.changed = true
			}
		case opTurnDone:
			v.partial.Reset()
			v.working, d.changed, d.turnDone = 0, true, true
		}
	}
	d.dirty = len(v.entries) > n
	return d
}

// report tells r what applying did: failures, then Dirty and Changed.
func (v *eventView) report(r Reporter, d fed) {
	v.mu.Lock()
	seq := uint64(len(v.entries))
	v.mu.Unlock()
	for _, err := range d.fails {
		r.Failed(err)
	}
	if d.dirty {
		r.Dirty(seq)
	}
	if d.changed {
		r.Changed()
	}
}

// setState records st; it reports a change.
func (v *eventView) setState(st session.State) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.setStateLocked(st)
}

func (v *eventView) setStateLocked(st session.State) bool {
	if v.state == st {
		return false
	}
	v.state, v.stateSince = st, time.Now()
	return true
}

// addLocked appends an entry (v.mu held).
func (v *eventView) addLocked(role session.Role, text string) {
	now := time.Now()
	v.entries = append(v.entries, session.Entry{Seq: uint64(len(v.entries) + 1), Time: now, Role: role, Text: text})
	v.lastOutput = now
}

// userTurn enters a user turn the dashboard sent; it returns the entry's
// seq.
func (v *eventView) userTurn(text string) uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.addLocked(session.RoleUser, text)
	v.problem, v.failure = "", ""
	return uint64(len(v.entries))
}

// titleTail is how much of a streaming answer the title shows.
const titleTail = 60

// info fills what the view knows of a session's Info: its kind, agent and
// command, its title (the model, else model, and the streaming answer's
// tail, the turn's running time or the last problem), state and last
// output.
func (v *eventView) info(in *session.Info, model string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	title := v.model
	if title == "" {
		title = model
	}
	switch {
	case v.partial.Len() > 0:
		tail := []rune(strings.Join(strings.Fields(v.partial.String()), " "))
		if len(tail) > titleTail {
			tail = append([]rune("…"), tail[len(tail)-titleTail:]...)
		}
		title += " · " + string(tail)
	case v.working > 0:
		title += " · working for " + v.working.Round(time.Second).String()
	case v.problem != "":
		title += " · " + v.problem
	}
	in.Kind, in.Agent, in.Argv = v.kind, v.agent, v.argv
	in.State, in.StateSince, in.LastOutput, in.Title = v.state, v.stateSince, v.lastOutput, title
	if v.state == session.Idle {
		in.Error = v.failure
	}
}

// transcript implements Transcripter for a member.
func (v *eventView) transcript(after uint64) []session.Entry {
	v.mu.Lock()
	defer v.mu.Unlock()
	if after >= uint64(len(v.entries)) {
		return nil
	}
	return append([]session.Entry(nil), v.entries[after:]...)
}

// toolCall is a tool call as the transcript shows it: its name and its
// arguments on one line.
func toolCall(name string, args json.RawMessage) string {
	var v any
	if json.Unmarshal(args, &v) != nil {
		return name + " " + string(args)
	}
	b, _ := json.Marshal(v)
	return name + " " + string(b)
}
