// Package acp runs an Agent Client Protocol agent as a session: its
// process with its stdio held here, this process its ACP client
// (github.com/coder/acp-go-sdk), its state and transcript taken from the
// agent's own updates, and its permission requests answered with the
// protocol's structured reply. A supervisor (`heimdall run --acp`) runs
// one Session and serves it on the session's socket (Server): the
// dashboard is only a client, so the session outlives it.
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/heimdall-tui/heimdall-tui/backend/proc"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// Options describe one ACP session.
type Options struct {
	ID   string
	Argv []string // the agent and its arguments
	Dir  string   // the working directory: the session's, and the only one its file requests may reach
	Env  []string // NAME=value added to the agent's environment
	// FS says which of the agent's file requests are served (always
	// within Dir): "read", "write", both ("read,write"), or none ("").
	FS string
	// Resume is an ACP session id to go on with (session/resume, else
	// session/load, where the agent offers them); "" opens a new one.
	Resume string
	Logger *slog.Logger
	// KillGrace is SIGTERM's time before SIGKILL.
	KillGrace time.Duration
}

// Bounds on what a session keeps.
const (
	maxEntries   = 4000     // transcript entries kept (the oldest go)
	maxEntryText = 64 << 10 // bytes of one entry
	maxPrompt    = 64 << 10 // bytes of one prompt
)

// ErrBusy is Say's error while a turn runs.
var ErrBusy = errors.New("busy: a turn is under way")

// Session is one ACP agent and the conversation this client opened with it.
type Session struct {
	opt  Options
	log  *slog.Logger
	p    *proc.Process
	conn *sdk.ClientSideConnection
	sid  sdk.SessionId
	caps sdk.AgentCapabilities
	root string // Dir, its symlinks resolved: file requests must stay under it

	mu       sync.Mutex
	entries  []session.Entry
	seq      uint64
	partial  strings.Builder // the agent's text not yet a whole line
	partRole session.Role
	tools    map[sdk.ToolCallId]string // titles of the tool calls seen
	state    session.State
	since    time.Time
	turn     context.CancelFunc // the turn under way (nil: idle)
	perm     *pending
	errText  string // why the last turn failed ("" after a normal end)
	done     bool   // the last turn ended normally and nobody has seen it since
	summary  string
	usage    session.Usage
	exited   bool
	watchers map[int]func()
	nextW    int
	exitC    chan struct{}
}

// pending is a permission request waiting for the user.
type pending struct {
	req   sdk.RequestPermissionRequest
	reply chan sdk.RequestPermissionOutcome
}

// Start starts the agent, initializes the protocol and opens (or
// resumes) the session in opt.Dir.
func Start(ctx context.Context, opt Options) (*Session, error) {
	if len(opt.Argv) == 0 {
		return nil, errors.New("no agent given")
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	dir := opt.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	root, err := realDir(dir)
	if err != nil {
		return nil, fmt.Errorf("working directory: %w", err)
	}
	opt.Dir = dir
	s := &Session{opt: opt, log: opt.Logger, root: root, tools: map[sdk.ToolCallId]string{},
		state: session.Idle, since: time.Now(), watchers: map[int]func(){}, exitC: make(chan struct{})}
	path, err := exec.LookPath(opt.Argv[0])
	if err != nil {
		return nil, fmt.Errorf("cannot start %q: %w", opt.Argv[0], err)
	}
	cmd := exec.Command(path, opt.Argv[1:]...)
	cmd.Args[0], cmd.Dir = opt.Argv[0], dir
	cmd.Env = append(os.Environ(), opt.Env...)
	cmd.Stderr = logWriter{s.log}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if s.p, err = proc.Start(cmd, proc.Options{Grace: opt.KillGrace, Logger: s.log}); err != nil {
		return nil, fmt.Errorf("cannot start %q: %w", opt.Argv[0], err)
	}
	s.conn = sdk.NewClientSideConnection(client{s}, in, out)
	s.conn.SetLogger(s.log)
	go s.watchExit()
	if err := s.open(ctx); err != nil {
		s.p.ForceKill()
		s.p.Wait()
		return nil, err
	}
	return s, nil
}

// open is initialize, then session/new, or for opt.Resume session/resume
// (or session/load, which replays the conversation as updates).
func (s *Session) open(ctx context.Context) error {
	read, write := strings.Contains(s.opt.FS, "read"), strings.Contains(s.opt.FS, "write")
	init, err := s.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: read, WriteTextFile: write}},
		ClientInfo:         &sdk.Implementation{Name: "heimdall-tui", Version: "1"}})
	if err != nil {
		return fmt.Errorf("acp initialize: %w", err)
	}
	s.caps = init.AgentCapabilities
	switch {
	case s.opt.Resume != "" && s.caps.SessionCapabilities.Resume != nil:
		_, err = s.conn.ResumeSession(ctx, sdk.ResumeSessionRequest{SessionId: sdk.SessionId(s.opt.Resume), Cwd: s.opt.Dir})
		s.sid = sdk.SessionId(s.opt.Resume)
	case s.opt.Resume != "" && s.caps.LoadSession:
		_, err = s.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: sdk.SessionId(s.opt.Resume), Cwd: s.opt.Dir, McpServers: []sdk.McpServer{}})
		s.sid = sdk.SessionId(s.opt.Resume)
	case s.opt.Resume != "":
		return fmt.Errorf("acp: the agent cannot resume session %s (no session/resume or session/load)", s.opt.Resume)
	default:
		var ns sdk.NewSessionResponse
		ns, err = s.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: s.opt.Dir, McpServers: []sdk.McpServer{}})
		s.sid = ns.SessionId
	}
	if err != nil {
		return fmt.Errorf("acp session: %w", err)
	}
	s.add(session.RoleSystem, "acp session "+string(s.sid)+" started")
	return nil
}

// watchExit ends the session when the agent exits.
func (s *Session) watchExit() {
	code := s.p.Wait()
	s.mu.Lock()
	s.flushLocked()
	s.exited, s.state, s.since = true, session.Dead, time.Now()
	if s.turn != nil {
		s.turn()
	}
	s.mu.Unlock()
	s.add(session.RoleSystem, fmt.Sprintf("the agent exited (code %d)", code))
	close(s.exitC)
}

// ID is the ACP session id (the conversation, for a resume).
func (s *Session) ID() string { return string(s.sid) }

// PID is the agent's.
func (s *Session) PID() int { return s.p.PID() }

// Done is closed once the agent has exited.
func (s *Session) Done() <-chan struct{} { return s.exitC }

// ExitCode is the agent's, once Done.
func (s *Session) ExitCode() int { return s.p.ExitCode() }

// Kill stops the agent (SIGTERM, SIGKILL after the grace; at once with
// force).
func (s *Session) Kill(force bool) error {
	if force {
		return s.p.ForceKill()
	}
	return s.p.Stop()
}

// Say starts a turn with text as its prompt (ErrBusy while one runs).
func (s *Session) Say(text string) error {
	text = strings.TrimRight(text, "\r\n")
	switch {
	case strings.TrimSpace(text) == "":
		return errors.New("an empty prompt")
	case len(text) > maxPrompt:
		return fmt.Errorf("a prompt of %d bytes: at most %d", len(text), maxPrompt)
	}
	s.mu.Lock()
	if s.exited {
		s.mu.Unlock()
		return errors.New("the agent has exited")
	}
	if s.turn != nil {
		s.mu.Unlock()
		return ErrBusy
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.turn = cancel
	s.errText, s.done, s.summary = "", false, ""
	s.setStateLocked(session.Thinking)
	s.mu.Unlock()
	s.add(session.RoleUser, text)
	go s.runTurn(ctx, text)
	return nil
}

func (s *Session) runTurn(ctx context.Context, text string) {
	res, err := s.conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.sid, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
	s.mu.Lock()
	s.flushLocked()
	s.turn = nil
	s.perm = nil
	switch {
	case err != nil:
		s.errText = "error: " + err.Error()
	case res.StopReason == sdk.StopReasonEndTurn:
		s.done = true
	case res.StopReason == sdk.StopReasonCancelled:
		s.errText = ""
	default:
		s.errText = string(res.StopReason)
	}
	if res.Usage != nil {
		s.addUsageLocked(*res.Usage)
	}
	if !s.exited {
		s.setStateLocked(session.Idle)
	}
	s.mu.Unlock()
	switch {
	case err != nil:
		s.add(session.RoleSystem, "the turn failed: "+err.Error())
	case res.StopReason == sdk.StopReasonCancelled:
		s.add(session.RoleSystem, "cancelled")
	case res.StopReason != sdk.StopReasonEndTurn:
		s.add(session.RoleSystem, "the turn ended: "+string(res.StopReason))
	}
	s.changed()
}

// Cancel stops the turn under way (session/cancel): a pending permission
// request is answered cancelled, as the protocol asks.
func (s *Session) Cancel() error {
	s.mu.Lock()
	busy, p := s.turn != nil, s.perm
	s.perm = nil
	s.mu.Unlock()
	if !busy {
		return errors.New("no turn is under way")
	}
	if p != nil {
		p.reply <- sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}
	}
	return s.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: s.sid})
}

// addUsageLocked counts a turn's tokens in today's row.
func (s *Session) addUsageLocked(u sdk.Usage) {
	t := session.Tokens{Input: int64(u.InputTokens), Output: int64(u.OutputTokens)}
	if u.CachedReadTokens != nil {
		t.CacheRead = int64(*u.CachedReadTokens)
	}
	if u.CachedWriteTokens != nil {
		t.CacheWrite = int64(*u.CachedWriteTokens)
	}
	day := time.Now().Format(time.DateOnly)
	model := "acp:" + agentName(s.opt.Argv)
	for i := range s.usage {
		if s.usage[i].Day == day && s.usage[i].Model == model {
			s.usage[i].Tokens = s.usage[i].Tokens.Add(t)
			return
		}
	}
	s.usage = append(s.usage, session.UsageRow{Day: day, Model: model, Tokens: t})
}

func agentName(argv []string) string {
	n := argv[0]
	if i := strings.LastIndexByte(n, '/'); i >= 0 {
		n = n[i+1:]
	}
	return n
}

// setStateLocked moves the state (s.mu held).
func (s *Session) setStateLocked(st session.State) {
	if s.state != st {
		s.state, s.since = st, time.Now()
	}
}

// add appends an entry to the transcript and tells the watchers.
func (s *Session) add(role session.Role, text string) {
	s.mu.Lock()
	s.addLocked(role, text)
	s.mu.Unlock()
	s.changed()
}

func (s *Session) addLocked(role session.Role, text string) {
	if len(text) > maxEntryText {
		text = text[:maxEntryText] + "…"
	}
	s.seq++
	s.entries = append(s.entries, session.Entry{Seq: s.seq, Time: time.Now(), Role: role, Text: text})
	if len(s.entries) > maxEntries {
		s.entries = append(s.entries[:0:0], s.entries[len(s.entries)-maxEntries:]...)
	}
}

// stream adds streamed text of role: whole lines become entries at once,
// the rest when the role changes or the turn ends (flushLocked).
func (s *Session) stream(role session.Role, text string) {
	s.mu.Lock()
	if s.partRole != role {
		s.flushLocked()
		s.partRole = role
	}
	s.partial.WriteString(text)
	if s.partial.Len() > maxEntryText || strings.Contains(text, "\n") {
		s.flushLocked()
	}
	if role == session.RoleAssistant && s.turn != nil {
		s.setStateLocked(session.Streaming)
	}
	s.mu.Unlock()
	s.changed()
}

// flushLocked makes the partial text an entry (s.mu held).
func (s *Session) flushLocked() {
	if t := strings.TrimRight(s.partial.String(), "\n"); strings.TrimSpace(t) != "" {
		s.addLocked(s.partRole, t)
		if s.partRole == session.RoleAssistant {
			s.summary = firstLine(t)
		}
	}
	s.partial.Reset()
}

func firstLine(t string) string {
	t = strings.TrimSpace(t)
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = t[:i]
	}
	return t
}

// Entries are the transcript's entries after seq, oldest first (the
// partial line included, as an entry of seq 0 at the end, while there is
// one).
func (s *Session) Entries(after uint64) []session.Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []session.Entry
	for _, e := range s.entries {
		if e.Seq > after {
			out = append(out, e)
		}
	}
	return out
}

// Watch calls fn after every change (state or transcript) until remove.
// fn must not block.
func (s *Session) Watch(fn func()) (remove func()) {
	s.mu.Lock()
	id := s.nextW
	s.nextW++
	s.watchers[id] = fn
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.watchers, id)
		s.mu.Unlock()
	}
}

func (s *Session) changed() {
	s.mu.Lock()
	fns := make([]func(), 0, len(s.watchers))
	for _, fn := range s.watchers {
		fns = append(fns, fn)
	}
	s.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// Seen: a user has seen the session (it is no longer Done).
func (s *Session) Seen() {
	s.mu.Lock()
	s.done = false
	s.mu.Unlock()
	s.changed()
}

// View is the session's state and what its agent said of it.
type View struct {
	State        session.State
	Since        time.Time
	NeedsInput   bool
	Reason       string // the permission asked: the tool and its options
	Done         bool
	Error        string
	Summary      string
	Tool         string
	Conversation string
	Usage        session.Usage
	PID          int
	LastSeq      uint64
}

// View is the session now.
func (s *Session) View() View {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := View{State: s.state, Since: s.since, Done: s.done, Error: s.errText, Summary: s.summary,
		Conversation: string(s.sid), Usage: append(session.Usage(nil), s.usage...), PID: s.p.PID(), LastSeq: s.seq}
	if s.perm != nil {
		v.NeedsInput, v.Reason = true, permReason(s.perm.req)
	}
	if s.state == session.ToolUse {
		v.Tool = s.lastTool()
	}
	return v
}

func (s *Session) lastTool() string {
	for i := len(s.entries) - 1; i >= 0; i-- {
		if s.entries[i].Role == session.RoleTool {
			return firstLine(s.entries[i].Text)
		}
	}
	return ""
}

// permReason words a permission request: the tool call's title, then
// its options.
func permReason(r sdk.RequestPermissionRequest) string {
	title := "a tool call"
	if r.ToolCall.Title != nil && *r.ToolCall.Title != "" {
		title = *r.ToolCall.Title
	}
	var opts []string
	for i, o := range r.Options {
		opts = append(opts, fmt.Sprintf("%d. %s", i+1, o.Name))
	}
	return title + " (" + strings.Join(opts, ", ") + ")"
}

// Screen is the transcript's last lines as text, for clients that read a
// session's screen (screen, status).
func (s *Session) Screen(lines int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for i := len(s.entries) - 1; i >= 0 && len(out) < lines; i-- {
		e := s.entries[i]
		ls := strings.Split(e.Text, "\n")
		for j := len(ls) - 1; j >= 0 && len(out) < lines; j-- {
			prefix := "  "
			if j == 0 {
				prefix = string(e.Role) + ": "
			}
			out = append(out, prefix+ls[j])
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return strings.Join(out, "\n")
}

// logWriter is the agent's stderr, into the session's log.
type logWriter struct{ log *slog.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	w.log.Info("agent stderr", "text", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

var _ io.Writer = logWriter{}
