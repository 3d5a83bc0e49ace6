// Command fakeacp is an Agent Client Protocol agent for tests, built on
// the agent side of the same library the client uses
// (github.com/coder/acp-go-sdk). It speaks ACP on stdin/stdout and plays a
// turn by its prompt:
//
//	hello      streams "Hello from the fake agent." in pieces; usage 100 in, 20 out
//	tool       a tool call ("Run ls", execute) that asks permission (allow
//	           once, allow always, reject once); allowed, it completes and
//	           says "ran ls", else "not allowed"
//	slow       streams "working…" every 100 ms until cancelled
//	long       streams twenty steps 100 ms apart, then "finished" (and logs "long finished")
//	read PATH  asks the client to read PATH (fs/read_text_file)
//	anything   an echo
//
// FAKE_ACP_LOG, if set, is a file it appends what it got to: "prompt
// TEXT", "permission OUTCOME", "cancelled", "read ok N" or "read error
// MSG", "resumed ID".
package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

type agent struct {
	conn *sdk.AgentSideConnection

	mu     sync.Mutex
	cancel context.CancelFunc // the turn under way's
}

func logLine(format string, args ...any) {
	path := os.Getenv("FAKE_ACP_LOG")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, format+"\n", args...)
}

func (a *agent) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

func (a *agent) Initialize(context.Context, sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	return sdk.InitializeResponse{ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{SessionCapabilities: sdk.SessionCapabilities{Resume: &sdk.SessionResumeCapabilities{}}}}, nil
}

// Cancel ends the turn under way (its Prompt returns cancelled).
func (a *agent) Cancel(context.Context, sdk.CancelNotification) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancel != nil {
		a.cancel()
	}
	return nil
}

func (a *agent) NewSession(context.Context, sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(fmt.Sprintf("fake-%d", os.Getpid()))}, nil
}

func (a *agent) ResumeSession(_ context.Context, r sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	logLine("resumed %s", r.SessionId)
	return sdk.ResumeSessionResponse{}, nil
}

func (a *agent) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, nil
}

func (a *agent) CloseSession(context.Context, sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	return sdk.CloseSessionResponse{}, nil
}

func (a *agent) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, nil
}

func (a *agent) SetSessionMode(context.Context, sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	return sdk.SetSessionModeResponse{}, nil
}

func (a *agent) say(ctx context.Context, sid sdk.SessionId, text string) {
	a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sid, Update: sdk.UpdateAgentMessageText(text)})
}

func (a *agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	var text string
	for _, b := range p.Prompt {
		if b.Text != nil {
			text += b.Text.Text
		}
	}
	logLine("prompt %s", text)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a.mu.Lock()
	a.cancel = cancel
	a.mu.Unlock()
	sid := p.SessionId
	end := sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}
	pause := func(d time.Duration) bool {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(d):
			return true
		}
	}
	switch {
	case text == "hello":
		for _, piece := range []string{"Hello ", "from the ", "fake agent."} {
			a.say(ctx, sid, piece)
		}
		end.Usage = &sdk.Usage{InputTokens: 100, OutputTokens: 20, TotalTokens: 120}
	case text == "tool":
		a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sid, Update: sdk.StartToolCall("call_1", "Run ls",
			sdk.WithStartKind(sdk.ToolKindExecute), sdk.WithStartStatus(sdk.ToolCallStatusPending))})
		resp, err := a.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sid,
			ToolCall: sdk.ToolCallUpdate{ToolCallId: "call_1", Title: sdk.Ptr("Run ls")},
			Options: []sdk.PermissionOption{
				{Kind: sdk.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: "allow"},
				{Kind: sdk.PermissionOptionKindAllowAlways, Name: "Always allow", OptionId: "always"},
				{Kind: sdk.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: "reject"},
			}})
		switch {
		case err != nil:
			logLine("permission error %v", err)
			return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
		case resp.Outcome.Cancelled != nil:
			logLine("permission cancelled")
			return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
		}
		opt := string(resp.Outcome.Selected.OptionId)
		logLine("permission %s", opt)
		if opt == "reject" {
			a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sid, Update: sdk.UpdateToolCall("call_1", sdk.WithUpdateStatus(sdk.ToolCallStatusFailed))})
			a.say(ctx, sid, "not allowed")
			break
		}
		a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sid, Update: sdk.UpdateToolCall("call_1", sdk.WithUpdateStatus(sdk.ToolCallStatusCompleted))})
		a.say(ctx, sid, "ran ls")
	case text == "slow":
		for {
			a.say(ctx, sid, "working…\n")
			if !pause(100 * time.Millisecond) {
				logLine("cancelled")
				return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
			}
		}
	case text == "long":
		for i := 1; i <= 20; i++ {
			a.say(ctx, sid, fmt.Sprintf("step %d\n", i))
			if !pause(100 * time.Millisecond) {
				logLine("cancelled")
				return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
			}
		}
		a.say(ctx, sid, "finished")
		logLine("long finished")
	case strings.HasPrefix(text, "read "):
		path := strings.TrimPrefix(text, "read ")
		r, err := a.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sid, Path: path})
		if err != nil {
			logLine("read error %v", err)
			a.say(ctx, sid, "could not read "+path)
			break
		}
		logLine("read ok %d", len(r.Content))
		a.say(ctx, sid, "read "+path)
	default:
		a.say(ctx, sid, "echo: "+text)
	}
	return end, nil
}

func main() {
	a := &agent{}
	a.conn = sdk.NewAgentSideConnection(a, os.Stdout, os.Stdin)
	<-a.conn.Done()
}
