package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/heimdall-tui/heimdall-tui/backend/headless"
	"github.com/heimdall-tui/heimdall-tui/backend/internal/uuid"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// Headless lists the sessions of a headless.Manager in a fleet, as members
// of kind session.KindHeadless: those the dashboard opens (Open; the
// member owns the session) and those others open on the same Manager (a
// blemeesd socket client: the member watches). It lives here rather than in
// a package of its own because a member is the fleet's seam (Member,
// Reporter) and the kind is small; backend/headless knows nothing of the
// fleet.
//
// A headless member lives in this process: when the fleet closes (Hangup)
// a session the dashboard owns is closed with it, and one it watches is
// left to its owner (the member just goes). Its fleet ID is "claude-" and
// the first 8 characters of the session's id (its full id if that one is
// taken).
type Headless struct {
	f      *Fleet
	m      *headless.Manager
	onTurn func(id string, u headless.Usage)

	mu      sync.Mutex
	tracked map[string]bool // headless ids listed or being listed
}

// HeadlessSpec is a session of an event-driven kind the dashboard opens:
// a headless Claude session (Kind "" or session.KindHeadless: Headless),
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

// NewHeadless lists m's sessions in f, now and as they are opened
// (headless.Manager.OnOpen). onTurn, if not nil, is called after each
// turn's result with the member's fleet ID and the session's usage
// (headless.Usage: LastTurn and the accumulated Total), from the member's
// goroutine: the dashboard puts it in the token ledger.
func NewHeadless(f *Fleet, m *headless.Manager, onTurn func(id string, u headless.Usage)) *Headless {
	h := &Headless{f: f, m: m, onTurn: onTurn, tracked: map[string]bool{}}
	m.OnOpen(func(s *headless.Session) { go h.watch(s) })
	for _, s := range m.Sessions() {
		go h.watch(s)
	}
	return h
}

// track marks headless id as listed; it reports false if it already was.
func (h *Headless) track(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.tracked[id] {
		return false
	}
	h.tracked[id] = true
	return true
}

func (h *Headless) untrack(id string) {
	h.mu.Lock()
	delete(h.tracked, id)
	h.mu.Unlock()
}

// fleetID is the fleet ID of headless session sid.
func fleetID(sid string) string {
	if len(sid) > 8 {
		sid = sid[:8]
	}
	return "claude-" + sid
}

// watch lists s, opened by someone else, as a member watching it.
func (h *Headless) watch(s *headless.Session) {
	if !h.track(s.ID()) {
		return
	}
	start := func(id string, r Reporter) (Member, error) {
		hm := newHeadlessMember(h, id, s.ID(), r, false)
		hm.s = s
		if err := s.Watch(hm, -1, nil); err != nil {
			return nil, err
		}
		hm.run()
		return hm, nil
	}
	if err := addHeadless(h.f, s.ID(), start); err != nil {
		h.untrack(s.ID())
		h.f.log.Info("headless session not listed", "session_id", s.ID(), "err", err)
	}
}

// addHeadless lists headless session sid under its fleetID, or its full
// id if that one is taken.
func addHeadless(f *Fleet, sid string, start StartFunc) error {
	err := f.Add(fleetID(sid), start)
	if err != nil && !errors.Is(err, ErrClosed) {
		err = f.Add(sid, start)
	}
	return err
}

// Open starts a headless Claude session through the Manager, owned by its
// member, and lists it; it returns its fleet ID. It blocks while claude
// starts.
func (h *Headless) Open(spec HeadlessSpec) (string, error) {
	sid := uuid.New()
	id := spec.ID
	if id == "" {
		id = fleetID(sid)
	}
	args := []string{"--include-partial-messages"}
	for _, a := range [][2]string{{"--model", spec.Model}, {"--permission-mode", spec.PermissionMode}, {"--system-prompt", spec.SystemPrompt}} {
		if a[1] != "" {
			args = append(args, a[0]+"="+a[1]) // the value glued: never a flag (blemees.OpenRequest.Args)
		}
	}
	h.track(sid)
	err := h.f.Add(id, func(id string, r Reporter) (Member, error) {
		return h.openOwned(id, headless.Spec{ID: sid, Dir: spec.Dir, Args: args}, r)
	})
	if err != nil {
		h.untrack(sid)
		return "", err
	}
	return id, nil
}

// openOwned opens spec's session for a new member id owns (sid tracked by
// the caller), restartable: Restart resumes the same conversation.
func (h *Headless) openOwned(id string, spec headless.Spec, r Reporter) (Member, error) {
	hm := newHeadlessMember(h, id, spec.ID, r, true)
	s, err := h.m.Open(spec, headless.Attach{Sink: hm, LastSeen: -1})
	if err != nil {
		return nil, err
	}
	hm.s = s
	hm.run()
	return resumable{hm, spec}, nil
}

// resumable is a headless session the dashboard opened: Restart opens it
// again with claude's --resume (session.CapRestart), the conversation
// going on where it stopped.
type resumable struct {
	*headlessMember
	spec headless.Spec
}

func (x resumable) Restart(r Reporter) (Member, error) {
	spec := x.spec
	spec.Resume = true
	x.h.track(spec.ID) // the Manager's OnOpen must not list it a second time
	m, err := x.h.openOwned(x.id, spec, r)
	if err != nil {
		x.h.untrack(spec.ID)
		return nil, err
	}
	return m, nil
}

// headlessMember is a headless session of this process's Manager in a
// fleet. It is the session's Sink: Deliver queues events (it never blocks:
// the session holds its emit lock meanwhile) and the member's goroutine
// feeds them to its claudeView (transcript, title) and reports.
type headlessMember struct {
	h   *Headless
	id  string // the fleet's
	sid string // the session's
	r   Reporter
	own bool // the dashboard opened it: the member is its owner
	s   *headless.Session
	v   *claudeView

	wake     chan struct{} // capacity 1: events queued or taken
	stop     chan struct{} // closed by Hangup of a watched session
	stopOnce sync.Once
	done     chan struct{}

	mu    sync.Mutex
	queue []headless.Event
	taken bool // the owner's session was taken over: watch it instead
}

func newHeadlessMember(h *Headless, id, sid string, r Reporter, own bool) *headlessMember {
	return &headlessMember{h: h, id: id, sid: sid, r: r, own: own, v: newClaudeView(sid, false), wake: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{})}
}

func (hm *headlessMember) signal() {
	select {
	case hm.wake <- struct{}{}:
	default:
	}
}

// Deliver implements headless.Sink.
func (hm *headlessMember) Deliver(ev headless.Event) {
	hm.mu.Lock()
	hm.queue = append(hm.queue, ev)
	hm.mu.Unlock()
	hm.signal()
}

// Taken implements headless.Sink: a socket client took the session over;
// the member keeps showing it as a watcher.
func (hm *headlessMember) Taken(string, int) {
	hm.mu.Lock()
	hm.taken = true
	hm.mu.Unlock()
	hm.signal()
}

// from is the Sink the member acts as: itself if it owns the session, else
// nil (the dashboard's user acts on a session a socket client owns).
func (hm *headlessMember) from() headless.Sink {
	hm.mu.Lock()
	defer hm.mu.Unlock()
	if hm.own && !hm.taken {
		return hm
	}
	return nil
}

func (hm *headlessMember) run() { go hm.loop() }

func (hm *headlessMember) loop() {
	defer close(hm.done)
	defer hm.h.untrack(hm.sid)
	for {
		select {
		case <-hm.wake:
		case <-hm.s.Done():
			hm.drain()
			hm.r.Exited(0)
			return
		case <-hm.stop:
			hm.s.Unwatch(hm)
			return
		}
		hm.drain()
	}
}

// drain handles the queued events and a takeover.
func (hm *headlessMember) drain() {
	hm.mu.Lock()
	evs, taken := hm.queue, hm.taken
	hm.queue = nil
	if taken {
		hm.taken, hm.own = false, false
	}
	hm.mu.Unlock()
	if taken {
		hm.s.Watch(hm, int64(hm.v.seen()), nil)
	}
	d := hm.v.feed(evs)
	if hm.v.setState(hm.s.Info().State) {
		d.changed = true
	}
	hm.v.report(hm.r, d)
	if d.turnDone && hm.h.onTurn != nil {
		hm.h.onTurn(hm.id, hm.s.Info().Usage)
	}
}

// claudeView is the claude mapping of an eventView: claude's events (of
// a session of this process's Manager, headlessMember, or of one followed
// on a standalone daemon, blemeesMember, so both show the same) as view
// operations. Entries: a user turn sent from the dashboard (a socket
// client's turns are not in claude's output, so they are not shown); each
// completed assistant message's text; each tool call (name and JSON
// arguments) and tool result; the session's notices (start, stderr,
// crash, interrupt, a failed or denied turn).
//
// With streamState the view also keeps the session's state from the
// stream (a followed session cannot be asked): a turn is active from its
// first stream event to its result; Thinking, Streaming or ToolUse as the
// stream events say; Idle after the result, a crash or an interrupt. A
// member of this process sets the Manager's state instead (setState).
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
func (hm *headlessMember) Info() session.Info {
	hi := hm.s.Info()
	in := session.Info{Dir: hi.Dir, Owned: hm.own, PID: hi.PID, Started: hi.Started, Alive: true}
	hm.v.info(&in, hi.Model)
	return in
}

// Send implements Member: the input is a user turn's text.
func (hm *headlessMember) Send(in session.Input) error {
	text := strings.TrimRight(string(in.Data), "\r\n")
	msg, _ := json.Marshal(map[string]string{"role": "user", "content": text})
	seq, changed, err := hm.v.sendTurn(text,
		func() error { return hm.s.Send(hm.from(), msg) },
		func() session.State { return hm.s.Info().State })
	if err != nil {
		return err
	}
	hm.r.Dirty(seq)
	if changed {
		hm.r.Changed()
	}
	return nil
}

// Stop implements Member: the session is closed (claude gets SIGTERM,
// SIGKILL after the interrupt grace, either way).
func (hm *headlessMember) Stop(bool) error { return hm.s.Close(hm.from(), false) }

// Interrupt implements Interrupter: the turn in flight ends, claude is
// started again with --resume.
func (hm *headlessMember) Interrupt() error { return hm.s.Interrupt(hm.from()) }

// Hangup implements Member: a session the dashboard owns ends with it; a
// watched one is left to its owner.
func (hm *headlessMember) Hangup() {
	if hm.from() != nil {
		if err := hm.s.Close(hm, false); err == nil {
			return
		}
	}
	hm.stopOnce.Do(func() { close(hm.stop) })
}

// Done implements Member.
func (hm *headlessMember) Done() <-chan struct{} { return hm.done }

// Transcript implements Transcripter.
func (hm *headlessMember) Transcript(after uint64) []session.Entry { return hm.v.transcript(after) }
