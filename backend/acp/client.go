package acp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// client is the session's side of the protocol: what the agent asks of
// it (sdk.Client).
type client struct{ s *Session }

var _ sdk.Client = client{}

// maxFile bounds a file the agent reads or writes through the client.
const maxFile = 8 << 20

// SessionUpdate takes the agent's streamed progress into the transcript
// and the state.
func (c client) SessionUpdate(ctx context.Context, n sdk.SessionNotification) error {
	s, u := c.s, n.Update
	switch {
	case u.AgentMessageChunk != nil:
		s.stream(session.RoleAssistant, contentText(u.AgentMessageChunk.Content))
	case u.AgentThoughtChunk != nil:
		s.mu.Lock()
		if s.turn != nil {
			s.setStateLocked(session.Thinking)
		}
		s.mu.Unlock()
		s.changed()
	case u.UserMessageChunk != nil: // a session/load replaying the conversation
		s.stream(session.RoleUser, contentText(u.UserMessageChunk.Content))
	case u.ToolCall != nil:
		t := u.ToolCall
		s.mu.Lock()
		s.flushLocked()
		s.tools[t.ToolCallId] = t.Title
		s.addLocked(session.RoleTool, toolLine(t.Title, string(t.Kind), string(t.Status)))
		if s.turn != nil {
			s.setStateLocked(session.ToolUse)
		}
		s.mu.Unlock()
		s.changed()
	case u.ToolCallUpdate != nil:
		t := u.ToolCallUpdate
		if t.Status == nil || (*t.Status != sdk.ToolCallStatusCompleted && *t.Status != sdk.ToolCallStatusFailed) {
			return nil // progress without an end: the call's entry stands
		}
		s.mu.Lock()
		s.flushLocked()
		title := s.tools[t.ToolCallId]
		if t.Title != nil {
			title = *t.Title
		}
		s.addLocked(session.RoleTool, "→ "+title+": "+string(*t.Status))
		if s.turn != nil {
			s.setStateLocked(session.Thinking)
		}
		s.mu.Unlock()
		s.changed()
	case u.Plan != nil:
		var b strings.Builder
		b.WriteString("plan:")
		for _, e := range u.Plan.Entries {
			fmt.Fprintf(&b, "\n  [%s] %s", e.Status, e.Content)
		}
		s.mu.Lock()
		s.flushLocked()
		s.addLocked(session.RoleSystem, b.String())
		s.mu.Unlock()
		s.changed()
	case u.UsageUpdate != nil:
		s.log.Debug("acp usage", "used", u.UsageUpdate.Used, "size", u.UsageUpdate.Size)
	}
	return nil
}

func toolLine(title, kind, status string) string {
	t := title
	if kind != "" {
		t = kind + ": " + t
	}
	if status != "" && status != string(sdk.ToolCallStatusPending) {
		t += " (" + status + ")"
	}
	return t
}

// contentText is a content block as text ("[image]" for what is not).
func contentText(c sdk.ContentBlock) string {
	switch {
	case c.Text != nil:
		return c.Text.Text
	case c.ResourceLink != nil:
		return "[" + c.ResourceLink.Uri + "]"
	case c.Image != nil:
		return "[image]"
	}
	return "[content]"
}

// RequestPermission waits for the user's answer (Answer), the turn's
// cancel, or the agent's giving up.
func (c client) RequestPermission(ctx context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	s := c.s
	p := &pending{req: r, reply: make(chan sdk.RequestPermissionOutcome, 1)}
	s.mu.Lock()
	s.flushLocked()
	s.perm = p
	s.mu.Unlock()
	s.add(session.RoleSystem, "asks: "+permReason(r))
	var out sdk.RequestPermissionOutcome
	select {
	case out = <-p.reply:
	case <-ctx.Done():
		out = sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}
	case <-s.exitC:
		out = sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}
	}
	s.mu.Lock()
	if s.perm == p {
		s.perm = nil
	}
	s.mu.Unlock()
	s.changed()
	return sdk.RequestPermissionResponse{Outcome: out}, nil
}

// Prompt is the permission request waiting, as a dialog (its tool call's
// title and its options' names).
func (s *Session) Prompt() frame.PromptInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.perm == nil {
		return frame.PromptInfo{Error: "no permission request waits"}
	}
	info := frame.PromptInfo{Family: "acp", Question: permReason(s.perm.req)}
	for _, o := range s.perm.req.Options {
		info.Options = append(info.Options, o.Name)
	}
	return info
}

// Answer replies to the permission request waiting with the option the
// choice names: allow (allow once), always (allow always), deny (reject
// once, else always), or option N. No keys: the protocol's own reply.
func (s *Session) Answer(a frame.AnswerRequest) frame.AnswerResult {
	res := frame.AnswerResult{Request: a.Request}
	s.mu.Lock()
	p := s.perm
	if p == nil {
		s.mu.Unlock()
		res.Error = "no permission request waits"
		return res
	}
	question := permReason(p.req)
	if a.Question != "" && a.Question != question {
		s.mu.Unlock()
		res.Error = "the agent asks something else now: " + question
		return res
	}
	i := pickOption(p.req.Options, a)
	if i < 0 {
		s.mu.Unlock()
		res.Error = fmt.Sprintf("no option for %q among %s", a.Choice, question)
		return res
	}
	s.perm = nil
	s.mu.Unlock()
	o := p.req.Options[i]
	p.reply <- sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}
	s.add(session.RoleUser, "answered: "+o.Name)
	res.OK, res.Option, res.Label, res.Question = true, i+1, o.Name, question
	return res
}

// pickOption is the index of the option a names, -1 if none.
func pickOption(opts []sdk.PermissionOption, a frame.AnswerRequest) int {
	byKind := func(kinds ...sdk.PermissionOptionKind) int {
		for _, k := range kinds {
			for i, o := range opts {
				if o.Kind == k {
					return i
				}
			}
		}
		return -1
	}
	switch a.Choice {
	case "allow":
		return byKind(sdk.PermissionOptionKindAllowOnce, sdk.PermissionOptionKindAllowAlways)
	case "always":
		return byKind(sdk.PermissionOptionKindAllowAlways)
	case "deny":
		return byKind(sdk.PermissionOptionKindRejectOnce, sdk.PermissionOptionKindRejectAlways)
	case "option":
		if a.Option >= 1 && a.Option <= len(opts) {
			return a.Option - 1
		}
	}
	return -1
}

// ReadTextFile serves a read within the working directory, if the
// session's FS allows reads.
func (c client) ReadTextFile(ctx context.Context, r sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	s := c.s
	path, err := s.allowed(r.Path, "read")
	if err != nil {
		s.add(session.RoleSystem, "refused: "+err.Error())
		return sdk.ReadTextFileResponse{}, err
	}
	f, err := os.Open(path)
	if err != nil {
		return sdk.ReadTextFileResponse{}, err
	}
	defer f.Close()
	b := make([]byte, maxFile+1)
	n, _ := f.Read(b)
	for n < len(b) {
		m, err := f.Read(b[n:])
		n += m
		if err != nil || m == 0 {
			break
		}
	}
	if n > maxFile {
		return sdk.ReadTextFileResponse{}, fmt.Errorf("%s is over %d bytes", r.Path, maxFile)
	}
	text := string(b[:n])
	if r.Line != nil || r.Limit != nil {
		lines := strings.SplitAfter(text, "\n")
		from := 0
		if r.Line != nil && *r.Line > 1 {
			from = min(*r.Line-1, len(lines))
		}
		to := len(lines)
		if r.Limit != nil && *r.Limit >= 0 {
			to = min(from+*r.Limit, len(lines))
		}
		text = strings.Join(lines[from:to], "")
	}
	return sdk.ReadTextFileResponse{Content: text}, nil
}

// WriteTextFile serves a write within the working directory, if the
// session's FS allows writes.
func (c client) WriteTextFile(ctx context.Context, r sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	s := c.s
	path, err := s.allowed(r.Path, "write")
	if err == nil && len(r.Content) > maxFile {
		err = fmt.Errorf("%s: %d bytes, at most %d", r.Path, len(r.Content), maxFile)
	}
	if err != nil {
		s.add(session.RoleSystem, "refused: "+err.Error())
		return sdk.WriteTextFileResponse{}, err
	}
	return sdk.WriteTextFileResponse{}, os.WriteFile(path, []byte(r.Content), 0o644)
}

// errTerminal refuses the agent's terminal requests: the client does not
// offer terminals (its capability says so).
var errTerminal = errors.New("this client offers no terminals")

func (c client) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errTerminal
}
func (c client) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errTerminal
}
func (c client) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errTerminal
}
func (c client) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errTerminal
}
func (c client) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errTerminal
}

// allowed is path, if the session's FS allows what and path (absolute,
// as the protocol asks) resolves to a file under the working directory,
// symbolic links followed.
func (s *Session) allowed(path, what string) (string, error) {
	if !strings.Contains(s.opt.FS, what) {
		return "", fmt.Errorf("%s %s: this session's agent may not %s files", what, path, what)
	}
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%s %s: not an absolute path", what, path)
	}
	clean := filepath.Clean(path)
	// The file may not exist yet (a write): resolve its directory.
	dir, base := filepath.Dir(clean), filepath.Base(clean)
	real, err := realDir(dir)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", what, path, err)
	}
	full := filepath.Join(real, base)
	if fi, err := os.Lstat(full); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if full, err = filepath.EvalSymlinks(full); err != nil {
			return "", fmt.Errorf("%s %s: %w", what, path, err)
		}
	}
	if rel, err := filepath.Rel(s.root, full); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("%s %s: outside the session's working directory %s", what, path, s.opt.Dir)
	}
	return full, nil
}

// realDir is dir absolute with its symbolic links resolved.
func realDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}
