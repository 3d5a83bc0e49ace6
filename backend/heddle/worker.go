// Package heddle is a heddle-compatible worker: one agent session served
// over heddle's headless protocol (wire/heddle) on a reader and a writer —
// `heimdall-tui heddle-headless` serves it on stdin and stdout. Requests
// are read concurrently with the agent loop, so a cancel reaches a send in
// flight. The loop calls an OpenAI-compatible streaming endpoint
// (backend/heddle/llm) and runs the tools the model asks for
// (backend/heddle/tools) in the working directory until the model stops,
// max_iterations is reached, or the same tool call repeats (loop_detected).
//
// The client side of the protocol is backend/heddle/client.
package heddle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/heddle/llm"
	"github.com/heimdall-tui/heimdall-tui/backend/heddle/tools"
	"github.com/heimdall-tui/heimdall-tui/backend/internal/uuid"
	wire "github.com/heimdall-tui/heimdall-tui/wire/heddle"
)

// Defaults of Config.
const (
	DefaultHeartbeat     = 5000 * time.Millisecond
	DefaultMaxIterations = 25
	// DoomRepeats is how many times in a row the same tool call (name and
	// arguments) may be asked for: the next identical one is a doom loop.
	DoomRepeats = 2
	// Provider names the provider in provider_error events.
	Provider = "openrouter"
	// previewRunes bounds a tool_end's result_preview.
	previewRunes = 200
)

// Config is a worker's configuration.
type Config struct {
	// Version is the protocol version it advertises ("": wire.Version;
	// HEDDLE_PROTOCOL_VERSION).
	Version string
	// Heartbeat is the interval of heartbeat events during a send (0:
	// DefaultHeartbeat; HEDDLE_HEARTBEAT_INTERVAL, in ms).
	Heartbeat time.Duration
	// LLM is the endpoint (HEDDLE_BASE_URL, OPENROUTER_API_KEY).
	LLM *llm.Client
	// Dir is the tools' working directory ("": the process's).
	Dir string
	// Home is the state directory (HEDDLE_HOME): each session's messages
	// are appended to Home/sessions/<session_id>.jsonl as they are added.
	// "": none kept.
	Home string
	// Logger gets what the worker says besides the protocol (nil: none).
	Logger *slog.Logger
}

// Worker serves one session.
type Worker struct {
	cfg Config
	out *wire.Writer
	log *slog.Logger

	mu       sync.Mutex
	init     *wire.InitConfig // nil until init succeeds
	sid      string
	messages []llm.Message
	specs    []llm.Tool
	history  *os.File // Home/sessions/<sid>.jsonl, nil if none
	active   *sendRun
	waiting  []*waiting    // requests in order, behind the send before them
	sending  int           // sends waiting or running
	wake     chan struct{} // cap 1: something waits
}

// New returns a worker of cfg.
func New(cfg Config) *Worker {
	if cfg.Version == "" {
		cfg.Version = wire.Version
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	if cfg.LLM == nil {
		cfg.LLM = &llm.Client{}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Worker{cfg: cfg, log: log}
}

// maxWaiting bounds the requests waiting behind a send; one more is
// refused.
const maxWaiting = 1024

// waiting is a request taken in order: behind the send before it.
type waiting struct {
	q         wire.Request
	cancelled bool // a send cancelled before it started (w.mu)
	end       bool // the end of the input: the runner returns
}

// line is what the reader read.
type line struct {
	l   wire.Line
	err error
}

// Serve reads requests from in and writes replies and events to out
// until shutdown (it returns nil after writing shutdown_ok) or the end of
// in (nil too, once the send in flight and the requests before the end
// are done; a line longer than wire.MaxLine is an error: what waits is
// cancelled). Requests are handled in the order they arrive: a send runs
// to its result before the request after it is handled (init, send,
// shutdown written at once run the send, then shut down), except that
// while a send is running or waiting, cancel acts at once (on the running
// send, or on a waiting one, which then never starts) and status answers
// at once (active: true). A line that is not JSON, or a request that is
// wrong, gets a protocol_error result and Serve reads on.
//
// Serve reads in on a goroutine of its own, which ends with in (after a
// shutdown, at the next line or the end of in).
func (w *Worker) Serve(in io.Reader, out io.Writer) error {
	w.out = wire.NewWriter(out)
	w.wake = make(chan struct{}, 1)
	defer w.closeHistory()
	ran := make(chan struct{}) // the runner returned: shutdown, or the end
	go func() { defer close(ran); w.runWaiting() }()
	lines := make(chan line)
	go func() {
		r := wire.NewReader(in)
		for {
			l, err := r.Next()
			select {
			case lines <- line{l, err}:
			case <-ran:
				return
			}
			if err != nil && !errors.Is(err, wire.ErrInvalidJSON) {
				return
			}
		}
	}()
	for {
		select {
		case <-ran:
			return nil // shutdown
		case rl := <-lines:
			switch {
			case errors.Is(rl.err, wire.ErrInvalidJSON):
				w.refuse("", wire.MsgInvalidJSON)
			case errors.Is(rl.err, io.EOF):
				w.enqueue(&waiting{end: true})
				<-ran
				return nil
			case rl.err != nil:
				w.cancelAll()
				w.enqueue(&waiting{end: true})
				<-ran
				return fmt.Errorf("heddle: read: %w", rl.err)
			default:
				w.accept(rl.l)
			}
		}
	}
}

func (w *Worker) write(v any) {
	if err := w.out.Write(v); err != nil {
		w.log.Warn("write", "err", err)
	}
}

// refuse writes a protocol_error result for request id.
func (w *Worker) refuse(id, msg string) {
	w.write(wire.Result{Type: wire.TypeResult, ID: id, Status: wire.ResultError, ToolCallsMade: []wire.ToolCall{},
		Error: &wire.ErrorEnvelope{Code: wire.CodeProtocolError, Message: msg}})
}

// accept checks a request and queues it, or answers it at once: a bad
// one, and cancel and status while a send runs or waits.
func (w *Worker) accept(l wire.Line) {
	q, err := wire.DecodeRequest(l)
	if err != nil {
		w.refuse(l.ID, "Malformed "+l.Type+" request: "+err.Error())
		return
	}
	switch q.Type {
	case wire.TypeInit, wire.TypeSend, wire.TypeStatus, wire.TypeCancel, wire.TypeShutdown:
	case "":
		w.refuse(q.ID, "Missing required field: type")
		return
	default:
		w.refuse(q.ID, "Unknown request type: "+q.Type)
		return
	}
	if q.ID == "" {
		w.refuse("", "Missing required field: id")
		return
	}
	w.mu.Lock()
	now := w.sending > 0 && w.init != nil && (q.Type == wire.TypeCancel || q.Type == wire.TypeStatus)
	w.mu.Unlock()
	if now {
		w.handle(q)
		return
	}
	if !w.enqueue(&waiting{q: q}) {
		w.refuse(q.ID, fmt.Sprintf("Too many requests waiting (%d): wait for a result", maxWaiting))
	}
}

// enqueue adds p behind what waits; false if too many wait.
func (w *Worker) enqueue(p *waiting) bool {
	w.mu.Lock()
	if !p.end && len(w.waiting) >= maxWaiting {
		w.mu.Unlock()
		return false
	}
	if p.q.Type == wire.TypeSend {
		w.sending++
	}
	w.waiting = append(w.waiting, p)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	return true
}

// runWaiting handles the requests in order until shutdown or the end.
func (w *Worker) runWaiting() {
	for {
		w.mu.Lock()
		if len(w.waiting) == 0 {
			w.mu.Unlock()
			<-w.wake
			continue
		}
		p := w.waiting[0]
		w.waiting = w.waiting[1:]
		cancelled := p.cancelled
		w.mu.Unlock()
		switch {
		case p.end:
			return
		case p.q.Type == wire.TypeSend:
			w.runSend(p.q, cancelled)
		case w.handle(p.q):
			return // shutdown
		}
	}
}

// runSend runs a send to its result (or writes its cancelled result, if
// it was cancelled while it waited).
func (w *Worker) runSend(q wire.Request, cancelled bool) {
	w.mu.Lock()
	ready := w.init != nil
	if !ready || cancelled || q.Message == nil {
		w.sending-- // before its answer: a status after it sees no send
	}
	w.mu.Unlock()
	switch {
	case !ready:
		w.refuse(q.ID, wire.MsgNotInitialized)
	case cancelled:
		w.writeCancelled(q.ID)
	default:
		if run := w.doSend(q); run != nil {
			<-run.done
		}
	}
}

// cancelAll cancels the send in flight and every send waiting.
func (w *Worker) cancelAll() {
	w.mu.Lock()
	for _, p := range w.waiting {
		p.cancelled = true
	}
	w.mu.Unlock()
	w.cancelActive("")
}

// handle answers one request other than send; it reports shutdown.
func (w *Worker) handle(q wire.Request) (shutdown bool) {
	w.mu.Lock()
	ready := w.init != nil
	w.mu.Unlock()
	if q.Type != wire.TypeInit && !ready {
		w.refuse(q.ID, wire.MsgNotInitialized)
		return false
	}
	switch q.Type {
	case wire.TypeInit:
		w.doInit(q)
	case wire.TypeStatus:
		w.mu.Lock()
		st := wire.StatusOK{Type: wire.TypeStatusOK, ID: q.ID, Model: w.init.Model, MessagesCount: len(w.messages),
			SessionID: w.sid, Active: w.sending > 0}
		w.mu.Unlock()
		w.write(st)
	case wire.TypeCancel:
		if q.TargetID == nil || *q.TargetID == "" {
			w.refuse(q.ID, "Missing required field: target_id")
		} else if !w.cancelActive(*q.TargetID) && !w.cancelWaiting(*q.TargetID) {
			w.refuse(q.ID, fmt.Sprintf("No active send with id %q", *q.TargetID))
		}
	case wire.TypeShutdown:
		w.cancelActive("")
		w.write(wire.ShutdownOK{Type: wire.TypeShutdownOK, ID: q.ID})
		return true
	}
	return false
}

// cancelWaiting takes the waiting send target out of the queue and
// writes its cancelled result; it reports whether there was one.
func (w *Worker) cancelWaiting(target string) bool {
	w.mu.Lock()
	i := slices.IndexFunc(w.waiting, func(p *waiting) bool { return p.q.Type == wire.TypeSend && p.q.ID == target })
	if i < 0 {
		w.mu.Unlock()
		return false
	}
	w.waiting = slices.Delete(w.waiting, i, i+1)
	w.sending--
	w.mu.Unlock()
	w.writeCancelled(target)
	return true
}

// writeCancelled writes the result of a send cancelled before it started.
func (w *Worker) writeCancelled(id string) {
	w.write(wire.Result{Type: wire.TypeResult, ID: id, Status: wire.ResultError, ToolCallsMade: []wire.ToolCall{},
		Error: &wire.ErrorEnvelope{Code: wire.CodeCancelled, Message: "cancelled"}, Correlation: w.correlation()})
}

// correlation is what every event and result of the session carries: the
// session id once init gave one, task_id and worker_id if init set them.
// (The seed's table has session_id only with task_id or worker_id;
// heddle's own worker always sends it, and clients key on it.)
func (w *Worker) correlation() wire.Correlation {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := wire.Correlation{SessionID: w.sid}
	if w.init != nil {
		c.TaskID, c.WorkerID = w.init.TaskID, w.init.WorkerID
	}
	return c
}

func (w *Worker) doInit(q wire.Request) {
	w.mu.Lock()
	again := w.init != nil
	w.mu.Unlock()
	if again {
		w.refuse(q.ID, "Already initialized")
		return
	}
	if q.ProtocolVersion != "" {
		if e := wire.Incompatible(q.ProtocolVersion, w.cfg.Version); e != nil {
			w.write(wire.InitOK{Type: wire.TypeInitOK, ID: q.ID, ProtocolVersion: w.cfg.Version, Error: e})
			return
		}
	}
	c := q.Config
	switch {
	case c == nil:
		w.refuse(q.ID, "Missing required field: config")
		return
	case c.Model == "":
		w.refuse(q.ID, "Missing required field: config.model")
		return
	case c.SystemPrompt == nil:
		w.refuse(q.ID, "Missing required field: config.system_prompt")
		return
	case c.Tools == nil:
		w.refuse(q.ID, "Missing required field: config.tools")
		return
	case c.MaxIterations < 0:
		w.refuse(q.ID, "config.max_iterations must be a positive number")
		return
	}
	specs, err := tools.Specs(c.Tools)
	if err != nil {
		w.refuse(q.ID, "config.tools: "+err.Error())
		return
	}
	cfg := *c
	if cfg.MaxIterations == 0 {
		cfg.MaxIterations = DefaultMaxIterations
	}
	sid := uuid.New()
	w.mu.Lock()
	w.init, w.sid = &cfg, sid
	for _, s := range specs {
		w.specs = append(w.specs, llm.Tool{Type: "function", Function: llm.Function{Name: s.Name, Description: s.Description, Parameters: s.Parameters}})
	}
	w.openHistoryLocked()
	w.appendLocked(llm.Message{Role: "system", Content: c.SystemPrompt})
	w.mu.Unlock()
	w.write(wire.InitOK{Type: wire.TypeInitOK, ID: q.ID, SessionID: sid, ProtocolVersion: w.cfg.Version})
}

// openHistoryLocked opens the session's history file under Home (w.mu
// held). A failure is logged: the session goes on without one.
func (w *Worker) openHistoryLocked() {
	if w.cfg.Home == "" {
		return
	}
	dir := filepath.Join(w.cfg.Home, "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		w.log.Warn("HEDDLE_HOME: no session history", "err", err)
		return
	}
	f, err := os.OpenFile(filepath.Join(dir, w.sid+".jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		w.log.Warn("HEDDLE_HOME: no session history", "err", err)
		return
	}
	w.history = f
}

func (w *Worker) closeHistory() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.history != nil {
		w.history.Close()
		w.history = nil
	}
}

// appendLocked adds m to the conversation and its history file (w.mu
// held).
func (w *Worker) appendLocked(m llm.Message) {
	w.messages = append(w.messages, m)
	if w.history == nil {
		return
	}
	b, _ := json.Marshal(m)
	if _, err := w.history.Write(append(b, '\n')); err != nil {
		w.log.Warn("HEDDLE_HOME: history write", "err", err)
	}
}

func (w *Worker) appendMessage(m llm.Message) {
	w.mu.Lock()
	w.appendLocked(m)
	w.mu.Unlock()
}

// answerPending gives every tool call of the latest assistant message
// that has no result (a cancel or a doom loop stopped the loop before it
// ran) a result saying it did not run: a conversation with unanswered tool
// calls is refused by the endpoint on the next send.
func (w *Worker) answerPending() {
	w.mu.Lock()
	defer w.mu.Unlock()
	answered := map[string]bool{}
	for i := len(w.messages) - 1; i >= 0; i-- {
		m := w.messages[i]
		if m.Role == "tool" {
			answered[m.ToolCallID] = true
			continue
		}
		if m.Role != "assistant" {
			return
		}
		for _, tc := range m.ToolCalls {
			if !answered[tc.ID] {
				text := "Error: not run (the send was stopped)"
				w.appendLocked(llm.Message{Role: "tool", ToolCallID: tc.ID, Content: &text})
			}
		}
		return
	}
}

// cancelActive cancels the send in flight if target is its id ("": any)
// and waits until its result is written; it reports whether there was one.
func (w *Worker) cancelActive(target string) bool {
	w.mu.Lock()
	run := w.active
	w.mu.Unlock()
	if run == nil || (target != "" && run.id != target) {
		return false
	}
	run.cancel()
	<-run.done
	return true
}

// doSend starts a send (none is running: runWaiting runs one at a time)
// and returns it, or nil if the request is refused.
func (w *Worker) doSend(q wire.Request) *sendRun {
	if q.Message == nil {
		w.refuse(q.ID, "Missing required field: message")
		return nil
	}
	corr := w.correlation()
	w.mu.Lock()
	cfg := *w.init
	ctx, cancel := context.WithCancel(context.Background())
	run := &sendRun{w: w, id: q.ID, cfg: cfg, corr: corr, ctx: ctx, cancel: cancel, start: time.Now(), done: make(chan struct{}),
		toolCalls: []wire.ToolCall{}}
	w.active = run
	w.appendLocked(llm.Message{Role: "user", Content: q.Message})
	w.mu.Unlock()
	go run.run()
	return run
}

// sendRun is one send in flight.
type sendRun struct {
	w      *Worker
	id     string
	cfg    wire.InitConfig
	corr   wire.Correlation
	ctx    context.Context
	cancel context.CancelFunc
	start  time.Time
	done   chan struct{} // closed after the result is written

	// emitMu orders events and guards seq and closed: no event is
	// written once the send is cancelled or its result is on the way.
	emitMu sync.Mutex
	seq    int64
	closed bool

	toolCalls    []wire.ToolCall
	usage        wire.Usage
	sawUsage     bool
	iterations   int
	modelLatency time.Duration
	toolLatency  time.Duration
}

// emit writes an event payload, unless the send was cancelled or has
// ended: a cancelled send writes nothing but its result.
func (s *sendRun) emit(payload any) {
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	if s.closed || s.ctx.Err() != nil {
		return
	}
	s.w.write(wire.Event{Type: wire.TypeEvent, Event: payload, EventSeq: s.seq, SendID: s.id, Correlation: s.corr})
	s.seq++
}

// heartbeat emits heartbeat events every interval until stop is closed.
func (s *sendRun) heartbeat(stop <-chan struct{}, stopped chan<- struct{}) {
	defer close(stopped)
	t := time.NewTicker(s.w.cfg.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-s.ctx.Done():
			return
		case <-t.C:
			s.emit(wire.Heartbeat{Event: wire.EvHeartbeat, DurationMS: time.Since(s.start).Milliseconds()})
		}
	}
}

// outcome is how a send ended.
type outcome struct {
	response string
	err      *wire.ErrorEnvelope
}

func (s *sendRun) run() {
	stop, stopped := make(chan struct{}), make(chan struct{})
	go s.heartbeat(stop, stopped)
	o := s.loop()
	s.w.answerPending()
	close(stop)
	<-stopped
	s.emitMu.Lock()
	s.closed = true // no heartbeat, no event after the result
	s.emitMu.Unlock()
	if s.ctx.Err() != nil {
		o = outcome{err: &wire.ErrorEnvelope{Code: wire.CodeCancelled, Message: "cancelled"}}
	}
	s.w.mu.Lock()
	s.w.active = nil
	s.w.sending-- // before the result: a status after it sees no send
	s.w.mu.Unlock()
	s.cancel()
	s.w.write(s.result(o))
	close(s.done)
}

// result is the send's result message.
func (s *sendRun) result(o outcome) wire.Result {
	r := wire.Result{Type: wire.TypeResult, ID: s.id, Status: wire.ResultOK, ToolCallsMade: s.toolCalls,
		Iterations: s.iterations, Correlation: s.corr}
	if s.sawUsage {
		u := s.usage
		r.Usage = &u
	}
	if o.err != nil {
		r.Status, r.Error = wire.ResultError, o.err
	} else {
		resp := o.response
		r.Response = &resp
	}
	if o.err == nil || o.err.Code != wire.CodeCancelled {
		ms := func(d time.Duration) *int64 { v := d.Milliseconds(); return &v }
		r.ModelLatencyMS, r.ToolLatencyMS, r.TotalLatencyMS = ms(s.modelLatency), ms(s.toolLatency), ms(time.Since(s.start))
	}
	return r
}

// loop is the agent loop: call the model, run the tools it asks for, and
// again, until it answers without tools or max_iterations calls were made.
func (s *sendRun) loop() outcome {
	var last []string // keys of the latest tool calls, for doom loops
	var response string
	for s.iterations < s.cfg.MaxIterations {
		s.w.mu.Lock()
		req := llm.Request{Model: s.cfg.Model, Messages: slices.Clone(s.w.messages), Tools: s.w.specs}
		s.w.mu.Unlock()
		t0 := time.Now()
		comp, err := s.w.cfg.LLM.Stream(s.ctx, req, llm.Handler{
			Responded: func() { s.iterations++ },
			Text:      func(t string) { s.emit(wire.ContentDelta{Event: wire.EvContentDelta, Text: t}) },
			Usage: func(u llm.Usage) {
				wu := wire.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
				s.usage, s.sawUsage = s.usage.Add(wu), true
				s.emit(wire.UsageEvent{Event: wire.EvUsage, Usage: wu})
			},
		})
		s.modelLatency += time.Since(t0)
		if s.ctx.Err() != nil {
			return outcome{}
		}
		if err != nil {
			return s.providerError(err)
		}
		content := comp.Content
		msg := llm.Message{Role: "assistant", ToolCalls: comp.ToolCalls}
		if content != "" || len(comp.ToolCalls) == 0 {
			msg.Content = &content
		}
		s.w.appendMessage(msg)
		response = content
		if len(comp.ToolCalls) == 0 {
			return outcome{response: response}
		}
		for _, tc := range comp.ToolCalls {
			key := tc.Function.Name + "\x00" + canonical(tc.Function.Arguments)
			if len(last) >= DoomRepeats && !slices.ContainsFunc(last[len(last)-DoomRepeats:], func(k string) bool { return k != key }) {
				e := &wire.ErrorEnvelope{Code: wire.CodeLoopDetected, Message: fmt.Sprintf("Doom loop: %s called %d times in a row with the same arguments", tc.Function.Name, DoomRepeats+1)}
				s.emit(wire.ErrorEvent{Event: wire.EvError, Code: e.Code, Message: e.Message, Details: json.RawMessage("null")})
				return outcome{err: e}
			}
			last = append(last, key)
			if o, stop := s.runTool(tc); stop {
				return o
			}
		}
	}
	return outcome{response: response}
}

// runTool runs one tool call and adds its result to the conversation; it
// reports a cancellation.
func (s *sendRun) runTool(tc llm.ToolCall) (outcome, bool) {
	name := tc.Function.Name
	args := json.RawMessage(tc.Function.Arguments)
	if !json.Valid(args) || !strings.HasPrefix(strings.TrimSpace(tc.Function.Arguments), "{") {
		if strings.TrimSpace(tc.Function.Arguments) == "" {
			args = json.RawMessage("{}")
		} else {
			args, _ = json.Marshal(tc.Function.Arguments)
		}
	}
	s.toolCalls = append(s.toolCalls, wire.ToolCall{Name: name, Args: args})
	s.emit(wire.ToolStart{Event: wire.EvToolStart, Name: name, Args: args})
	t0 := time.Now()
	var text string
	var err error
	if slices.Contains(s.cfg.Tools, name) {
		text, err = tools.Runner{Dir: s.w.cfg.Dir}.Run(s.ctx, name, args)
	} else {
		err = fmt.Errorf("tool %q is not enabled (tools: %s)", name, strings.Join(s.cfg.Tools, ", "))
	}
	s.toolLatency += time.Since(t0)
	if s.ctx.Err() != nil {
		return outcome{}, true
	}
	if err != nil {
		text = "Error: " + err.Error()
	}
	s.emit(wire.ToolEnd{Event: wire.EvToolEnd, Name: name, ResultPreview: preview(text)})
	if err != nil {
		s.emit(wire.ErrorEvent{Event: wire.EvError, Code: wire.CodeToolError, Message: err.Error(), Details: json.RawMessage("null")})
	}
	s.w.appendMessage(llm.Message{Role: "tool", ToolCallID: tc.ID, Content: &text})
	return outcome{}, false
}

// providerError is the outcome of a failed model call: an error event
// (provider_error, retryable, the provider's body as details) and the
// same error in the result. There is no automatic retry: the client
// decides.
func (s *sendRun) providerError(err error) outcome {
	e := &wire.ErrorEnvelope{Code: wire.CodeProviderError, Message: err.Error(), Retryable: true, Details: json.RawMessage("null")}
	if pe, ok := llm.IsProvider(err); ok {
		e.Message, e.Details = pe.Message, pe.Body
	}
	s.emit(wire.ErrorEvent{Event: wire.EvError, Code: e.Code, Message: e.Message, Retryable: true, Provider: Provider, Details: e.Details})
	return outcome{err: e}
}

// canonical is a JSON text re-encoded (object keys sorted), so two calls
// with the same arguments compare equal however they were spaced.
func canonical(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// preview is a tool result's first previewRunes runes, " (truncated)"
// after a cut.
func preview(s string) string {
	r := []rune(s)
	if len(r) <= previewRunes {
		return s
	}
	return string(r[:previewRunes]) + " (truncated)"
}
