// Package heddle is heddle's headless protocol (version 0.2.0): the
// messages an orchestrator and a heddle worker exchange as JSON lines, the
// worker on the orchestrator's stdin and stdout, and their codec. The
// protocol's text is ../../../shared/seeds/heddle-headless-protocol.txt; the
// summary:
//
//	client → worker: init, send, status, cancel, shutdown (each with an id)
//	worker → client: init_ok, event (during a send), result (a send's end, or
//	                 a request refused), status_ok, shutdown_ok
//
// Both sides ignore fields they do not know, and a client treats an event
// type it does not know as a no-op (DecodeEvent returns it as Unknown). The
// types here are the wire's own; backend/heddle (the worker) and
// backend/heddle/client (the client) map them at their edges.
package heddle

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Version is the protocol version this package speaks.
const Version = "0.2.0"

// Request types (client → worker).
const (
	TypeInit     = "init"
	TypeSend     = "send"
	TypeStatus   = "status"
	TypeCancel   = "cancel"
	TypeShutdown = "shutdown"
)

// Response types (worker → client).
const (
	TypeInitOK     = "init_ok"
	TypeEvent      = "event"
	TypeResult     = "result"
	TypeStatusOK   = "status_ok"
	TypeShutdownOK = "shutdown_ok"
)

// Error codes of the ErrorEnvelope, with whether a retry may help.
const (
	CodeProviderError   = "provider_error"            // retryable
	CodeProtocolError   = "protocol_error"            // not retryable
	CodeVersionMismatch = "protocol_version_mismatch" // not retryable
	CodeToolError       = "tool_error"                // not retryable
	CodeLoopDetected    = "loop_detected"             // not retryable
	CodeCancelled       = "cancelled"                 // not retryable
)

// Messages of protocol_error results the spec words exactly.
const (
	MsgNotInitialized = "Not initialized. Send 'init' first."
	MsgInvalidJSON    = "Invalid JSON"
)

// Request is any client → worker message: Type says which fields matter
// (init: ProtocolVersion, Config; send: Message; cancel: TargetID).
// Pointers tell a field that is missing from one that is empty, so a
// worker can refuse a request without its required fields.
type Request struct {
	Type            string      `json:"type"`
	ID              string      `json:"id"`
	ProtocolVersion string      `json:"protocol_version,omitempty"`
	Config          *InitConfig `json:"config,omitempty"`
	Message         *string     `json:"message,omitempty"`
	TargetID        *string     `json:"target_id,omitempty"`
}

// InitConfig is init's config. Model, SystemPrompt and Tools are
// required (Tools may be empty but must be there).
type InitConfig struct {
	Model         string   `json:"model"`
	SystemPrompt  *string  `json:"system_prompt"`
	Tools         []string `json:"tools"`
	MaxIterations int      `json:"max_iterations,omitempty"`
	TaskID        string   `json:"task_id,omitempty"`
	WorkerID      string   `json:"worker_id,omitempty"`
}

// ErrorEnvelope is every structured error.
type ErrorEnvelope struct {
	Code      string          `json:"code"`
	Message   string          `json:"message"`
	Retryable bool            `json:"retryable"`
	Details   json.RawMessage `json:"details,omitempty"`
}

func (e *ErrorEnvelope) Error() string { return e.Code + ": " + e.Message }

// InitOK answers init. With Error (a version mismatch) SessionID is "".
type InitOK struct {
	Type            string         `json:"type"` // init_ok
	ID              string         `json:"id"`
	SessionID       string         `json:"session_id"`
	ProtocolVersion string         `json:"protocol_version"`
	Error           *ErrorEnvelope `json:"error,omitempty"`
}

// Correlation is what events and results carry when the init config had
// a task_id or worker_id.
type Correlation struct {
	SessionID string `json:"session_id,omitempty"`
	TaskID    string `json:"task_id,omitempty"`
	WorkerID  string `json:"worker_id,omitempty"`
}

// Event is one streaming event of a send. Event is the payload: one of
// the payload types below when encoding; json.RawMessage when decoded
// (DecodeEvent reads it).
type Event struct {
	Type     string `json:"type"` // event
	Event    any    `json:"event"`
	EventSeq int64  `json:"event_seq"`
	SendID   string `json:"send_id"`
	Correlation
}

// Usage is token usage (of one LLM call, or summed over a send).
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

// Add returns u + o.
func (u Usage) Add(o Usage) Usage {
	return Usage{u.PromptTokens + o.PromptTokens, u.CompletionTokens + o.CompletionTokens, u.TotalTokens + o.TotalTokens}
}

// ToolCall is one entry of a result's tool_calls_made.
type ToolCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// Result ends a send (Status "ok" or "error"), or refuses a request (a
// protocol_error; ID the request's, "" for a line that was not JSON).
// ToolCallsMade is never null on the wire.
type Result struct {
	Type           string         `json:"type"` // result
	ID             string         `json:"id"`
	Status         string         `json:"status"`
	Response       *string        `json:"response,omitempty"`
	ToolCallsMade  []ToolCall     `json:"tool_calls_made"`
	Usage          *Usage         `json:"usage,omitempty"`
	Iterations     int            `json:"iterations"`
	Error          *ErrorEnvelope `json:"error,omitempty"`
	ModelLatencyMS *int64         `json:"model_latency_ms,omitempty"`
	ToolLatencyMS  *int64         `json:"tool_latency_ms,omitempty"`
	TotalLatencyMS *int64         `json:"total_latency_ms,omitempty"`
	Correlation
}

// Result statuses.
const (
	ResultOK    = "ok"
	ResultError = "error"
)

// StatusOK answers status.
type StatusOK struct {
	Type          string `json:"type"` // status_ok
	ID            string `json:"id"`
	Model         string `json:"model"`
	MessagesCount int    `json:"messages_count"`
	SessionID     string `json:"session_id"`
	Active        bool   `json:"active"`
}

// ShutdownOK answers shutdown; the worker then exits 0.
type ShutdownOK struct {
	Type string `json:"type"` // shutdown_ok
	ID   string `json:"id"`
}

// Event payload names.
const (
	EvContentDelta      = "content_delta"
	EvToolStart         = "tool_start"
	EvToolEnd           = "tool_end"
	EvUsage             = "usage"
	EvError             = "error"
	EvPermissionRequest = "permission_request"
	EvPermissionDenied  = "permission_denied"
	EvPlanComplete      = "plan_complete"
	EvContextPrune      = "context_prune"
	EvContextCompact    = "context_compact"
	EvContextHandoff    = "context_handoff"
	EvHeartbeat         = "heartbeat"
)

// Event payloads. Each has its name in Event ("content_delta", …).
type (
	ContentDelta struct {
		Event string `json:"event"`
		Text  string `json:"text"`
	}
	ToolStart struct {
		Event string          `json:"event"`
		Name  string          `json:"name"`
		Args  json.RawMessage `json:"args"`
	}
	ToolEnd struct {
		Event         string `json:"event"`
		Name          string `json:"name"`
		ResultPreview string `json:"result_preview"`
	}
	UsageEvent struct {
		Event string `json:"event"`
		Usage
	}
	ErrorEvent struct {
		Event     string          `json:"event"`
		Code      string          `json:"code"`
		Message   string          `json:"message"`
		Retryable bool            `json:"retryable"`
		Provider  string          `json:"provider,omitempty"`
		Details   json.RawMessage `json:"details"`
	}
	PermissionRequest struct {
		Event  string `json:"event"`
		Name   string `json:"name"`
		Reason string `json:"reason"`
	}
	PermissionDenied struct {
		Event  string `json:"event"`
		Name   string `json:"name"`
		Reason string `json:"reason"`
	}
	PlanComplete struct {
		Event string `json:"event"`
		Plan  string `json:"plan"`
	}
	ContextPrune struct {
		Event          string `json:"event"`
		MessagesPruned int64  `json:"messages_pruned"`
		TokensBefore   int64  `json:"tokens_before"`
		TokensAfter    int64  `json:"tokens_after"`
	}
	// ContextCompact and ContextHandoff are reserved by the protocol (no
	// fields yet).
	ContextCompact struct {
		Event string `json:"event"`
	}
	ContextHandoff struct {
		Event string `json:"event"`
	}
	Heartbeat struct {
		Event      string `json:"event"`
		DurationMS int64  `json:"duration_ms"`
	}
	// Unknown is an event payload of a type this package does not know:
	// a later minor version's. Clients treat it as a no-op.
	Unknown struct {
		Event string
		Raw   json.RawMessage
	}
)

// MarshalJSON is the payload as it was read: an unknown event passed on
// (`heddle run --json`) is the worker's, not this type's fields.
func (u Unknown) MarshalJSON() ([]byte, error) {
	if len(u.Raw) == 0 {
		return json.Marshal(struct {
			Event string `json:"event"`
		}{u.Event})
	}
	return u.Raw, nil
}

// DecodeEvent reads an event payload: one of the payload types above
// (values, not pointers), or Unknown for an event name it does not know.
// An error means the payload is not a JSON object with a string "event".
func DecodeEvent(raw json.RawMessage) (any, error) {
	var head struct {
		Event *string `json:"event"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("heddle: event payload: %w", err)
	}
	if head.Event == nil {
		return nil, fmt.Errorf("heddle: event payload without \"event\"")
	}
	var v any
	switch *head.Event {
	case EvContentDelta:
		v = &ContentDelta{}
	case EvToolStart:
		v = &ToolStart{}
	case EvToolEnd:
		v = &ToolEnd{}
	case EvUsage:
		v = &UsageEvent{}
	case EvError:
		v = &ErrorEvent{}
	case EvPermissionRequest:
		v = &PermissionRequest{}
	case EvPermissionDenied:
		v = &PermissionDenied{}
	case EvPlanComplete:
		v = &PlanComplete{}
	case EvContextPrune:
		v = &ContextPrune{}
	case EvContextCompact:
		v = &ContextCompact{}
	case EvContextHandoff:
		v = &ContextHandoff{}
	case EvHeartbeat:
		v = &Heartbeat{}
	default:
		return Unknown{Event: *head.Event, Raw: append(json.RawMessage(nil), raw...)}, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, fmt.Errorf("heddle: %s event: %w", *head.Event, err)
	}
	switch e := v.(type) {
	case *ContentDelta:
		return *e, nil
	case *ToolStart:
		return *e, nil
	case *ToolEnd:
		return *e, nil
	case *UsageEvent:
		return *e, nil
	case *ErrorEvent:
		return *e, nil
	case *PermissionRequest:
		return *e, nil
	case *PermissionDenied:
		return *e, nil
	case *PlanComplete:
		return *e, nil
	case *ContextPrune:
		return *e, nil
	case *ContextCompact:
		return *e, nil
	case *ContextHandoff:
		return *e, nil
	case *Heartbeat:
		return *e, nil
	}
	panic("unreachable")
}

// SemVer is a parsed MAJOR.MINOR.PATCH version (a pre-release or build
// suffix is ignored).
type SemVer struct{ Major, Minor, Patch int }

// ParseVersion parses "MAJOR.MINOR.PATCH".
func ParseVersion(s string) (SemVer, error) {
	core, _, _ := strings.Cut(s, "-")
	core, _, _ = strings.Cut(core, "+")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return SemVer{}, fmt.Errorf("version %q: not MAJOR.MINOR.PATCH", s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 {
			return SemVer{}, fmt.Errorf("version %q: not MAJOR.MINOR.PATCH", s)
		}
		n[i] = v
	}
	return SemVer{n[0], n[1], n[2]}, nil
}

func (v SemVer) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// Compatible reports whether a client of version a and a worker of
// version b can talk. The protocol says versions follow semver and are
// compatible when their MAJOR versions match; its own example refuses a
// 0.1.0 client on a 0.2.0 server, which is semver's rule for major version
// zero ("anything may change"): there the leftmost non-zero component is
// the one that must match (the caret rule: 0.2.x with 0.2.y; 0.0.3 only
// with 0.0.3). Both readings agree from 1.0.0 on.
func Compatible(a, b SemVer) bool {
	switch {
	case a.Major != b.Major:
		return false
	case a.Major > 0:
		return true
	case a.Minor != b.Minor:
		return false
	case a.Minor > 0:
		return true
	}
	return a.Patch == b.Patch
}

// CompatibleRule says what Compatible asks, for an error message.
const CompatibleRule = "the major versions must match, and below 1.0.0 the minor ones too"

// Incompatible returns the version mismatch error a worker of version
// server gives a client asking for requested, or nil if they are
// compatible. A requested version that does not parse is a mismatch too.
func Incompatible(requested, server string) *ErrorEnvelope {
	a, errA := ParseVersion(requested)
	b, errB := ParseVersion(server)
	if errA == nil && errB == nil && Compatible(a, b) {
		return nil
	}
	return &ErrorEnvelope{Code: CodeVersionMismatch, Message: fmt.Sprintf("Client requested %s, server is %s", requested, server)}
}
