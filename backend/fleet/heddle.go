package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/heddle/client"
	"github.com/heimdall-tui/heimdall-tui/backend/internal/uuid"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	wire "github.com/heimdall-tui/heimdall-tui/wire/heddle"
)

// Heddle starts heddle workers as members of a fleet (kind
// session.KindHeddle, CapTranscript | CapInterrupt): each member runs
// its worker command (a heddle binary, `heimdall-tui heddle-headless`, any
// program speaking heddle's headless protocol) through
// backend/heddle/client, sends init, and maps the worker's events to its
// eventView (heddleOps): the same transcript pane and state-from-events
// as the claude kinds. A worker lives in this process's fleet: closing the
// fleet shuts it down.
type Heddle struct {
	f   *Fleet
	cfg HeddleConfig
}

// HeddleConfig is how a fleet starts heddle workers.
type HeddleConfig struct {
	// Command is the worker command (required).
	Command []string
	// Env is added to the worker's environment (HEDDLE_BASE_URL, …).
	Env []string
	// Model, SystemPrompt, Tools and MaxIterations are init's defaults; a
	// spec's Model and SystemPrompt override the first two. Tools nil:
	// every tool heddle-headless has; MaxIterations 0: the worker's own.
	Model         string
	SystemPrompt  string
	Tools         []string
	MaxIterations int
	// InitTimeout bounds the wait for init_ok (0: 30 s).
	InitTimeout time.Duration
	// OnTurn, if not nil, gets each send's usage (the result's, else the
	// sum of its usage events) with the member's fleet ID: the dashboard
	// puts it in the token ledger. Called from the member's goroutine.
	OnTurn func(id string, u HeddleUsage)
}

// HeddleUsage is a send's token usage, as the worker reported it.
type HeddleUsage struct{ Prompt, Completion, Total int64 }

// DefaultHeddleTools are the tools a worker is given when the config
// names none: heddle's six.
var DefaultHeddleTools = []string{"read_file", "write_file", "edit_file", "glob", "grep", "bash"}

// NewHeddle returns the opener of heddle workers in f.
func NewHeddle(f *Fleet, cfg HeddleConfig) *Heddle {
	if cfg.Tools == nil {
		cfg.Tools = DefaultHeddleTools
	}
	if cfg.InitTimeout <= 0 {
		cfg.InitTimeout = 30 * time.Second
	}
	return &Heddle{f: f, cfg: cfg}
}

// Open starts a worker for spec (its ID, Dir, Model and SystemPrompt;
// PermissionMode is claude's and refused) and lists it once init
// succeeded; it returns the fleet ID ("heddle-" and 8 random hex digits
// if spec.ID is ""). It blocks while the worker starts.
func (h *Heddle) Open(spec HeadlessSpec) (string, error) {
	if spec.PermissionMode != "" {
		return "", errors.New("heddle workers take no permission mode")
	}
	if len(h.cfg.Command) == 0 {
		return "", errors.New("no heddle worker command: config [heddle] command")
	}
	id := spec.ID
	if id == "" {
		id = "heddle-" + uuid.New()[:8]
	}
	err := h.f.Add(id, func(id string, r Reporter) (Member, error) { return h.start(id, spec, r) })
	if err != nil {
		return "", err
	}
	return id, nil
}

func (h *Heddle) start(id string, spec HeadlessSpec, r Reporter) (Member, error) {
	model, prompt := h.cfg.Model, h.cfg.SystemPrompt
	if spec.Model != "" {
		model = spec.Model
	}
	if spec.SystemPrompt != "" {
		prompt = spec.SystemPrompt
	}
	if model == "" {
		return nil, errors.New("heddle: no model (config [heddle] model, or the spawn form's)")
	}
	m := &heddleMember{h: h, id: id, r: r, dir: spec.Dir, model: model, started: time.Now(), done: make(chan struct{}),
		log: h.f.log.With("component", "heddle", "id", id),
		v:   newEventView(id, session.KindHeddle, "heddle", h.cfg.Command)}
	c, err := client.Start(client.Options{Argv: h.cfg.Command, Dir: spec.Dir, Env: h.cfg.Env, Logger: m.log}, client.Handler{
		Event: m.event, Result: m.result, Garbage: m.garbage, Exit: m.exit,
	})
	if err != nil {
		return nil, err
	}
	m.c = c
	ctx, cancel := context.WithTimeout(context.Background(), h.cfg.InitTimeout)
	defer cancel()
	ok, err := c.Init(ctx, wire.InitConfig{Model: model, SystemPrompt: &prompt, Tools: h.cfg.Tools,
		MaxIterations: h.cfg.MaxIterations, TaskID: id, WorkerID: id})
	if err != nil {
		m.mu.Lock()
		m.failed = true // the start failed: Add returns the error, nothing to report
		m.mu.Unlock()
		c.Close()
		<-c.Done()
		return nil, fmt.Errorf("heddle worker %s: %w", strings.Join(h.cfg.Command, " "), err)
	}
	m.v.apply([]viewOp{{kind: opModel, text: model},
		{kind: opNotice, text: fmt.Sprintf("heddle worker started · %s · protocol %s · session %s", model, ok.ProtocolVersion, ok.SessionID)}})
	m.v.setState(session.Idle)
	return m, nil
}

// heddleMember is one worker in a fleet. The client's reader goroutine
// calls its handlers (event, result, garbage, exit) in the order the
// worker wrote; they apply the heddle mapping to the view and report.
type heddleMember struct {
	h       *Heddle
	id      string
	r       Reporter
	c       *client.Client
	v       *eventView
	log     *slog.Logger
	dir     string
	model   string
	started time.Time
	done    chan struct{}

	mu        sync.Mutex
	active    string          // the send in flight ("": none)
	cancels   map[string]bool // cancel requests not answered by a result of their own
	usage     wire.Usage      // its usage events, summed
	sawUsage  bool
	stopping  bool // Stop or Hangup asked the worker to go
	failed    bool // init failed: the member was never listed
	exited    bool
	closeOnce sync.Once
}

// apply applies ops and reports.
func (m *heddleMember) apply(ops ...viewOp) { m.v.report(m.r, m.v.apply(ops)) }

// event maps a send's event.
func (m *heddleMember) event(ev wire.Event) {
	m.mu.Lock()
	if ev.SendID != m.active {
		m.mu.Unlock()
		m.log.Info("event of another send ignored", "send_id", ev.SendID)
		return
	}
	if u, ok := ev.Event.(wire.UsageEvent); ok {
		m.usage, m.sawUsage = m.usage.Add(u.Usage), true
	}
	m.mu.Unlock()
	m.apply(heddleOps(ev.Event)...)
}

// heddleOps is the heddle mapping: an event payload as view operations.
// The state follows the events: Streaming on deltas, ToolUse from
// tool_start to tool_end, Thinking after it. Usage has no entry (it goes
// to the ledger at the result); unknown events are no-ops.
func heddleOps(p any) []viewOp {
	state := func(st session.State) viewOp { return viewOp{kind: opState, state: st} }
	switch e := p.(type) {
	case wire.ContentDelta:
		return []viewOp{{kind: opDelta, text: e.Text}, state(session.Streaming)}
	case wire.ToolStart:
		return []viewOp{{kind: opFlush}, {kind: opTool, text: toolCall(e.Name, e.Args)}, state(session.ToolUse)}
	case wire.ToolEnd:
		return []viewOp{{kind: opToolResult, text: e.ResultPreview, isErr: strings.HasPrefix(e.ResultPreview, "Error")}, state(session.Thinking)}
	case wire.ErrorEvent:
		return []viewOp{{kind: opNotice, text: errorText(e.Code, e.Message, e.Retryable, e.Provider)}}
	case wire.PermissionRequest:
		return []viewOp{{kind: opFlush}, {kind: opNotice, text: "permission requested: " + e.Name + " — " + e.Reason}}
	case wire.PermissionDenied:
		msg := "permission denied: " + e.Name
		return []viewOp{{kind: opFlush}, {kind: opProblem, text: msg + " — " + e.Reason, problem: msg}}
	case wire.PlanComplete:
		return []viewOp{{kind: opFlush}, {kind: opAssistant, text: "plan:\n" + e.Plan}}
	case wire.ContextPrune:
		return []viewOp{{kind: opNotice, text: fmt.Sprintf("context pruned: %d messages, %d → %d tokens", e.MessagesPruned, e.TokensBefore, e.TokensAfter)}}
	case wire.ContextCompact:
		return []viewOp{{kind: opNotice, text: "context compacted"}}
	case wire.ContextHandoff:
		return []viewOp{{kind: opNotice, text: "context handed off"}}
	case wire.Heartbeat:
		return []viewOp{{kind: opWorking, dur: time.Duration(e.DurationMS) * time.Millisecond}}
	}
	return nil
}

// errorText is an error with its code and whether a retry may help.
func errorText(code, msg string, retryable bool, provider string) string {
	r := "not retryable"
	if retryable {
		r = "retryable"
	}
	if provider != "" {
		r += ", " + provider
	}
	return fmt.Sprintf("error %s (%s): %s", code, r, msg)
}

// result ends the send in flight (or reports a refused request).
func (m *heddleMember) result(res wire.Result) {
	m.mu.Lock()
	mine := res.ID == m.active
	// A cancel that worked has no reply of its own (its send's result
	// says cancelled): its id stays in cancels, a few bytes a cancel.
	wasCancel := m.cancels[res.ID]
	delete(m.cancels, res.ID)
	var u wire.Usage
	sawUsage := false
	if mine {
		u, sawUsage = m.usage, m.sawUsage
		m.active, m.usage, m.sawUsage = "", wire.Usage{}, false
	}
	m.mu.Unlock()
	if wasCancel {
		// The send ended before the cancel reached the worker: nothing
		// was left to cancel.
		m.apply(viewOp{kind: opNotice, text: "nothing to cancel: the answer was complete"})
		return
	}
	if !mine {
		msg := "the worker refused a request"
		if res.Error != nil {
			msg += ": " + errorText(res.Error.Code, res.Error.Message, res.Error.Retryable, "")
		}
		m.apply(viewOp{kind: opProblem, text: msg, problem: "request refused", err: fmt.Errorf("%s: %s", m.id, msg)})
		return
	}
	ops := []viewOp{{kind: opFlush}}
	switch {
	case res.Status == wire.ResultOK && res.Response != nil:
		ops = append(ops, viewOp{kind: opMessage, text: *res.Response, final: true})
	case res.Error != nil && res.Error.Code == wire.CodeCancelled:
		ops = append(ops, viewOp{kind: opNotice, text: "cancelled"})
	}
	ops = append(ops, viewOp{kind: opTurnDone}, viewOp{kind: opState, state: session.Idle})
	if res.Status != wire.ResultOK && (res.Error == nil || res.Error.Code != wire.CodeCancelled) {
		msg := "send failed"
		if res.Error != nil {
			msg = errorText(res.Error.Code, res.Error.Message, res.Error.Retryable, "")
		}
		ops = append(ops, viewOp{kind: opProblem, text: msg, problem: "send failed", err: fmt.Errorf("%s: %s", m.id, msg)})
	}
	m.apply(ops...)
	if res.Usage != nil {
		u, sawUsage = *res.Usage, true
	}
	if sawUsage && m.h.cfg.OnTurn != nil {
		m.h.cfg.OnTurn(m.id, HeddleUsage{Prompt: u.PromptTokens, Completion: u.CompletionTokens, Total: u.TotalTokens})
	}
}

// garbage is a line that is not the protocol: an error in the pane.
func (m *heddleMember) garbage(line string, err error) {
	if r := []rune(line); len(r) > 200 {
		line = string(r[:200]) + "…"
	}
	msg := "the worker wrote a line that is not the protocol: " + line
	if line == "" {
		msg = "the worker's output is unreadable: " + err.Error()
	}
	m.apply(viewOp{kind: opProblem, text: msg, problem: "protocol error", err: fmt.Errorf("%s: %s", m.id, msg)})
}

// exit is the worker gone: a send in flight ends, an exit nobody asked
// for is an error in the pane, and the fleet hears Exited.
func (m *heddleMember) exit(code int, err error) {
	m.mu.Lock()
	failed, stopping, active := m.failed, m.stopping, m.active
	m.exited, m.active = true, ""
	m.mu.Unlock()
	if failed {
		return // never listed: Add reports the init error
	}
	ops := []viewOp{{kind: opFlush}, {kind: opState, state: session.Idle}}
	if active != "" {
		ops = append(ops, viewOp{kind: opTurnDone})
	}
	switch {
	case err != nil:
		ops = append(ops, viewOp{kind: opProblem, text: "the worker died: " + err.Error(), problem: "worker died", err: fmt.Errorf("%s: %w", m.id, err)})
	case !stopping:
		ops = append(ops, viewOp{kind: opProblem, text: "the worker exited", problem: "worker exited"})
	default:
		ops = append(ops, viewOp{kind: opNotice, text: "the worker shut down"})
	}
	m.apply(ops...)
	m.r.Exited(code)
	m.closeOnce.Do(func() { close(m.done) })
}

// Info implements Member.
func (m *heddleMember) Info() session.Info {
	m.mu.Lock()
	alive := !m.exited
	m.mu.Unlock()
	in := session.Info{Dir: m.dir, Owned: true, PID: m.c.PID(), Started: m.started, Alive: alive}
	m.v.info(&in, m.model)
	return in
}

// StatusCommand is the input that asks the worker's status (status,
// answered by status_ok) instead of sending a message; it may be sent
// while a message is being answered.
const StatusCommand = "/status"

// statusWait bounds the wait for status_ok.
const statusWait = 10 * time.Second

// Send implements Member: the input is a user message (a send), or
// StatusCommand. One send at a time: a second while one is in flight is
// refused here, with the way out.
func (m *heddleMember) Send(in session.Input) error {
	text := strings.TrimRight(string(in.Data), "\r\n")
	if strings.TrimSpace(text) == StatusCommand {
		go m.status()
		return nil
	}
	m.mu.Lock()
	if m.active != "" {
		m.mu.Unlock()
		return fmt.Errorf("send to %s: a message is still being answered (interrupt it first)", m.id)
	}
	id, err := m.c.Send(text)
	if err != nil {
		m.mu.Unlock()
		return fmt.Errorf("send to %s: %w", m.id, err)
	}
	m.active = id
	// The view takes the user's turn before m.mu is free, so the send's
	// first event (its handler takes m.mu) comes after it; the reports
	// wait until it is free (a Reporter is never called under it).
	seq := m.v.userTurn(text)
	d := m.v.apply([]viewOp{{kind: opTurnStart}, {kind: opState, state: session.Thinking}})
	m.mu.Unlock()
	m.r.Dirty(seq)
	if d.changed {
		m.r.Changed()
	}
	return nil
}

// status asks the worker's status and enters its answer (a notice), or
// the failure (a problem).
func (m *heddleMember) status() {
	ctx, cancel := context.WithTimeout(context.Background(), statusWait)
	defer cancel()
	st, err := m.c.Status(ctx)
	if err != nil {
		msg := "status: " + err.Error()
		m.apply(viewOp{kind: opProblem, text: msg, problem: "status failed", err: fmt.Errorf("%s: %s", m.id, msg)})
		return
	}
	activity := "idle"
	if st.Active {
		activity = "answering"
	}
	m.apply(viewOp{kind: opNotice, text: fmt.Sprintf("status: %s · %d messages · session %s · %s", st.Model, st.MessagesCount, st.SessionID, activity)})
}

// Interrupt implements Interrupter: the send in flight is cancelled.
func (m *heddleMember) Interrupt() error {
	// m.mu is held while the cancel is written, so a refusal (the send
	// ended meanwhile) cannot be handled before it is recorded.
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.active == "" {
		return fmt.Errorf("interrupt %s: no message is being answered", m.id)
	}
	id, err := m.c.Cancel(m.active)
	if err != nil {
		return fmt.Errorf("interrupt %s: %w", m.id, err)
	}
	if m.cancels == nil {
		m.cancels = map[string]bool{}
	}
	m.cancels[id] = true
	return nil
}

// shutdownWait bounds the wait for a worker to shut down before it is
// stopped (SIGTERM, SIGKILL after the grace).
const shutdownWait = 5 * time.Second

// Stop implements Member: shutdown (the client cancels a send in flight
// first), or with force SIGTERM to its process group at once; Exited
// follows.
func (m *heddleMember) Stop(force bool) error {
	m.mu.Lock()
	m.stopping = true
	m.mu.Unlock()
	if force {
		m.c.Close()
		return nil
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
		defer cancel()
		if err := m.c.Shutdown(ctx); err != nil {
			m.log.Warn("shutdown", "err", err)
		}
	}()
	return nil
}

// Hangup implements Member: the worker is shut down with the fleet.
func (m *heddleMember) Hangup() { m.Stop(false) }

// Done implements Member.
func (m *heddleMember) Done() <-chan struct{} { return m.done }

// Transcript implements Transcripter.
func (m *heddleMember) Transcript(after uint64) []session.Entry { return m.v.transcript(after) }
