package frame

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
)

// State is the classifier state byte carried in a StatusResp. The byte values
// are the union of all classifiers' states.
type State uint8

// Classifier states as they appear on the wire.
const (
	StateIdle      State = 0x00 // all classifiers
	StateThinking  State = 0x01 // claude
	StateStreaming State = 0x02 // claude
	StateToolUse   State = 0x03 // claude
	StateActive    State = 0x04 // simple
	StateDead      State = 0xFF // all classifiers
)

var stateNames = map[State]string{
	StateIdle: "Idle", StateThinking: "Thinking", StateStreaming: "Streaming",
	StateToolUse: "ToolUse", StateActive: "Active", StateDead: "Dead",
}

// String returns the state's name ("Idle", "ToolUse", …) or "State(0xNN)".
func (s State) String() string {
	if n, ok := stateNames[s]; ok {
		return n
	}
	return fmt.Sprintf("State(0x%02x)", uint8(s))
}

// StatusSize is the exact size of a StatusResp payload.
const StatusSize = 15

// StatusInfo is the decoded StatusResp payload. By byte offset:
//
//	0   pid       u32 BE  child process id
//	4   idle_ms   u32 BE  milliseconds since the last pty output
//	8   alive     u8      1 while the child runs, 0 after it exited
//	9   state     u8      classifier state (State)
//	10  state_ms  u32 BE  milliseconds in the current state
//	14  reserved  u8      always 0
type StatusInfo struct {
	PID     uint32
	IdleMS  uint32
	Alive   bool
	State   State
	StateMS uint32
}

// MarshalBinary encodes s as the 15-byte StatusResp payload. It never fails.
func (s StatusInfo) MarshalBinary() ([]byte, error) {
	b := make([]byte, StatusSize)
	binary.BigEndian.PutUint32(b[0:], s.PID)
	binary.BigEndian.PutUint32(b[4:], s.IdleMS)
	if s.Alive {
		b[8] = 1
	}
	b[9] = byte(s.State)
	binary.BigEndian.PutUint32(b[10:], s.StateMS)
	return b, nil
}

// UnmarshalBinary decodes a StatusResp payload; it must be exactly 15 bytes.
// The reserved byte is ignored so that future servers may use it.
func (s *StatusInfo) UnmarshalBinary(b []byte) error {
	if len(b) != StatusSize {
		return fmt.Errorf("frame: STATUS_RESP payload is %d bytes, want %d", len(b), StatusSize)
	}
	s.PID = binary.BigEndian.Uint32(b[0:])
	s.IdleMS = binary.BigEndian.Uint32(b[4:])
	s.Alive = b[8] != 0
	s.State = State(b[9])
	s.StateMS = binary.BigEndian.Uint32(b[10:])
	return nil
}

// ResizePayload encodes a RESIZE payload.
func ResizePayload(cols, rows uint16) []byte {
	b := make([]byte, 4)
	binary.BigEndian.PutUint16(b[0:], cols)
	binary.BigEndian.PutUint16(b[2:], rows)
	return b
}

// ParseResize decodes a RESIZE payload, which must be exactly 4 bytes.
func ParseResize(b []byte) (cols, rows uint16, err error) {
	if len(b) != 4 {
		return 0, 0, fmt.Errorf("frame: RESIZE payload is %d bytes, want 4", len(b))
	}
	return binary.BigEndian.Uint16(b[0:]), binary.BigEndian.Uint16(b[2:]), nil
}

// ExitPayload encodes an EXIT payload.
func ExitPayload(code int32) []byte {
	b := make([]byte, 4)
	binary.BigEndian.PutUint32(b, uint32(code))
	return b
}

// ParseExit decodes an EXIT payload, which must be exactly 4 bytes.
func ParseExit(b []byte) (int32, error) {
	if len(b) != 4 {
		return 0, fmt.Errorf("frame: EXIT payload is %d bytes, want 4", len(b))
	}
	return int32(binary.BigEndian.Uint32(b)), nil
}

// PaintHeader is the start of a PAINT payload: the session's size, which
// the repaint after it is drawn at, the number its emulator gave the
// screen the repaint shows (equal numbers mean identical screens; it grows
// with every change), and whether the repaint goes on in the next PAINT (a
// repaint longer than one frame carries is sent in pieces, each but the
// last with More, all with the same header otherwise; the pieces are
// concatenated).
type PaintHeader struct {
	Cols, Rows uint16
	More       bool
	Seq        uint64
}

// PaintHeaderLen is the length of a PaintHeader on the wire:
// [cols u16][rows u16][flags u8: 0x01 More][seq u64], big-endian.
const PaintHeaderLen = 13

// AppendPaint appends a PAINT payload, h followed by repaint, to dst.
func AppendPaint(dst []byte, h PaintHeader, repaint []byte) []byte {
	flags := byte(0)
	if h.More {
		flags = 1
	}
	dst = binary.BigEndian.AppendUint16(dst, h.Cols)
	dst = binary.BigEndian.AppendUint16(dst, h.Rows)
	dst = append(dst, flags)
	dst = binary.BigEndian.AppendUint64(dst, h.Seq)
	return append(dst, repaint...)
}

// ParsePaint splits a PAINT payload into its header and its piece of the
// repaint (which aliases b). Flags it does not know are ignored.
func ParsePaint(b []byte) (PaintHeader, []byte, error) {
	if len(b) < PaintHeaderLen {
		return PaintHeader{}, nil, fmt.Errorf("frame: PAINT payload is %d bytes, want at least %d", len(b), PaintHeaderLen)
	}
	h := PaintHeader{Cols: binary.BigEndian.Uint16(b[0:]), Rows: binary.BigEndian.Uint16(b[2:]),
		More: b[4]&1 != 0, Seq: binary.BigEndian.Uint64(b[5:])}
	return h, b[PaintHeaderLen:], nil
}

// ScreenInfo is the SCREEN_RESP payload (JSON): the session's screen as its
// terminal emulator shows it, and what the classifier makes of it.
type ScreenInfo struct {
	Cols          int    `json:"cols"`
	Rows          int    `json:"rows"`
	CursorX       int    `json:"cursor_x"`
	CursorY       int    `json:"cursor_y"`
	CursorVisible bool   `json:"cursor_visible"`
	AltScreen     bool   `json:"alt_screen"`
	Title         string `json:"title"`
	NeedsInput    bool   `json:"needs_input"`
	// Attention: the session started needing input while nobody watched
	// it (no subscriber) and still does.
	Attention bool `json:"attention,omitempty"`
	// Screen is the visible rows joined by "\n" (trailing blank rows
	// dropped), with SGR sequences if the request asked for them.
	Screen string `json:"screen"`
	// The agent's own reports (see StateInfo), omitted when empty.
	AgentState
}

// AgentState is what a session knows from its agent's own reports (hooks)
// beyond the state: shared by SCREEN_RESP and STATE.
type AgentState struct {
	// Reason says why the agent waits for the user (a tool and its
	// command, or the agent's message).
	Reason string `json:"reason,omitempty"`
	// Done: the last turn ended normally and no user has seen the session
	// since (SEEN, or an attach).
	Done bool `json:"done,omitempty"`
	// Error is the kind of failure that ended the last turn (rate_limit,
	// overloaded, …), ErrorDetails what the agent said of it.
	Error        string `json:"error,omitempty"`
	ErrorDetails string `json:"error_details,omitempty"`
	// Tool is the tool a busy agent runs.
	Tool string `json:"tool,omitempty"`
	// Summary is the first line of the agent's last message after a
	// turn that ended normally, if it said.
	Summary string `json:"summary,omitempty"`
	// Conversation is the agent's own conversation id (claude --resume ID).
	Conversation string `json:"conversation_id,omitempty"`
	// Limited: a usage limit stopped the last turn; LimitReset is when
	// it resets (Unix ms, 0: not said); AutoContinue: the agent continues
	// by itself then. Parked: nothing is to be sent to it on its own;
	// ContinueAt: a continue is scheduled then (Unix ms). Servers with
	// FeatureLimit.
	Limited      bool  `json:"limited,omitempty"`
	LimitReset   int64 `json:"limit_reset,omitempty"`
	AutoContinue bool  `json:"auto_continue,omitempty"`
	Parked       bool  `json:"parked,omitempty"`
	ContinueAt   int64 `json:"continue_at,omitempty"`
	// Usage is the tokens the agent reported, per day and model.
	Usage []UsageRow `json:"usage,omitempty"`
	// What going on with the conversation costs: the tokens its next
	// request re-sends and their model; ResumeReported: Claude said so as
	// it resumed it (until the first prompt), with whether the prompt
	// cache has likely expired and its USD estimate of re-caching them.
	ContextTokens  int64   `json:"context_tokens,omitempty"`
	ContextModel   string  `json:"context_model,omitempty"`
	ResumeReported bool    `json:"resume_reported,omitempty"`
	CacheExpired   bool    `json:"cache_expired,omitempty"`
	CacheWriteUSD  float64 `json:"cache_write_usd,omitempty"`
}

// UsageRow is the tokens of one model on one day (the server's local
// date, YYYY-MM-DD).
type UsageRow struct {
	Day        string `json:"day"`
	Model      string `json:"model"`
	Input      int64  `json:"input"`
	Output     int64  `json:"output"`
	CacheWrite int64  `json:"cache_write"`
	CacheRead  int64  `json:"cache_read"`
}

// StateInfo is the STATE payload: a session's state as its classifier and
// its agent's reports say, pushed after WATCH_STATE.
type StateInfo struct {
	State      string `json:"state"` // "Idle", "Thinking", … (the State byte table's names)
	StateMs    uint32 `json:"state_ms"`
	NeedsInput bool   `json:"needs_input"`
	Attention  bool   `json:"attention,omitempty"`
	// The session as a viewer shows it (servers whose HELLO_RESP lists
	// FeatureStateView): the program's pid, the window title, the pty's
	// size, and how long ago the program last wrote (IdleMs, at the time
	// of the push).
	PID    int    `json:"pid,omitempty"`
	Title  string `json:"title,omitempty"`
	Cols   int    `json:"cols,omitempty"`
	Rows   int    `json:"rows,omitempty"`
	IdleMs uint32 `json:"idle_ms,omitempty"`
	// Viewed: a user looks at the session somewhere — a terminal attached
	// (ATTACH, TERMINAL: attach, a web page) or a client that said VIEW.
	Viewed bool `json:"viewed,omitempty"`
	AgentState
}

// MarshalBinary encodes s as the STATE payload.
func (s StateInfo) MarshalBinary() ([]byte, error) { return json.Marshal(s) }

// UnmarshalBinary decodes a STATE payload.
func (s *StateInfo) UnmarshalBinary(b []byte) error {
	*s = StateInfo{} // the fields a payload omits are empty, not what s held
	if err := json.Unmarshal(b, s); err != nil {
		return fmt.Errorf("frame: STATE: %w", err)
	}
	return nil
}

// MarshalBinary encodes s as the SCREEN_RESP payload.
func (s ScreenInfo) MarshalBinary() ([]byte, error) { return json.Marshal(s) }

// UnmarshalBinary decodes a SCREEN_RESP payload.
func (s *ScreenInfo) UnmarshalBinary(b []byte) error {
	*s = ScreenInfo{} // the fields a payload omits are empty, not what s held
	if err := json.Unmarshal(b, s); err != nil {
		return fmt.Errorf("frame: SCREEN_RESP: %w", err)
	}
	return nil
}

// HelloInfo is the HELLO_RESP payload: what the server speaks.
type HelloInfo struct {
	// Request is the id the HELLO carried (0 if none), so a client can
	// match the reply to its request.
	Request uint32 `json:"request"`
	// Protocol is the version of this document's extensions the server
	// implements (HelloProtocol).
	Protocol int `json:"protocol"`
	// Features names the extensions the server serves (the Feature
	// constants); a client uses none it does not find here.
	Features []string `json:"features"`
}

// HelloProtocol is the version of the extensions HELLO_RESP reports.
const HelloProtocol = 2

// Features a HELLO_RESP may list.
const (
	FeatureScreen          = "screen"           // SCREEN
	FeatureSubscribeScreen = "subscribe_screen" // SUBSCRIBE_SCREEN
	FeatureAttach          = "attach"           // ATTACH
	FeatureHangup          = "hangup"           // HANGUP
	FeatureHook            = "hook"             // HOOK, SEEN
	FeatureWatchState      = "watch_state"      // WATCH_STATE, STATE
	FeatureStateView       = "state_view"       // STATE carries pid, title, size and idle time, and is pushed when they change (but idle time)
	FeatureWatchScreen     = "watch_screen"     // WATCH_SCREEN, PAINT
	FeatureTerminal        = "terminal"         // TERMINAL, TERMINAL_STATE
	FeatureAnswer          = "answer"           // ANSWER, ANSWER_RESP, PROMPT, PROMPT_RESP
	FeatureView            = "view"             // VIEW; STATE's viewed
	FeatureSay             = "say"              // SAY, SAY_RESP
	FeatureLimit           = "limit"            // LIMIT, LIMIT_RESP; STATE's limit and usage fields
	// FeatureTranscript: a session of messages, not of a terminal (an
	// ACP agent's): WATCH_ENTRIES, ENTRIES, CANCEL; SAY starts a turn,
	// ANSWER replies to the agent's permission request.
	FeatureTranscript = "transcript"
)

// Entry is one transcript entry of an ENTRIES payload.
type Entry struct {
	Seq  uint64 `json:"seq"`
	Time int64  `json:"time"` // Unix ms
	Role string `json:"role"` // user, assistant, tool, system
	Text string `json:"text"`
}

// WatchEntriesPayload is a WATCH_ENTRIES payload: entries after seq after.
func WatchEntriesPayload(after uint64) []byte {
	return binary.BigEndian.AppendUint64(nil, after)
}

// ParseWatchEntries reads a WATCH_ENTRIES payload (empty: from the start).
func ParseWatchEntries(p []byte) (uint64, error) {
	switch len(p) {
	case 0:
		return 0, nil
	case 8:
		return binary.BigEndian.Uint64(p), nil
	}
	return 0, fmt.Errorf("frame: WATCH_ENTRIES of %d bytes (want 0 or 8)", len(p))
}

// LimitRequest is the LIMIT payload: park the session (Park set: true or
// false), or schedule Text to be typed as a prompt at ContinueAt (Unix
// ms; never before the limit's reset), or with Text "" cancel it.
type LimitRequest struct {
	Request    uint32 `json:"request"`
	Park       *bool  `json:"park,omitempty"`
	ContinueAt int64  `json:"continue_at,omitempty"`
	Text       string `json:"text,omitempty"`
}

// LimitResult is the LIMIT_RESP payload.
type LimitResult struct {
	Request uint32 `json:"request"`
	OK      bool   `json:"ok"`
	Error   string `json:"error,omitempty"`
}

// UnmarshalBinary decodes a LIMIT_RESP payload.
func (r *LimitResult) UnmarshalBinary(b []byte) error {
	*r = LimitResult{}
	if err := json.Unmarshal(b, r); err != nil {
		return fmt.Errorf("frame: LIMIT_RESP: %w", err)
	}
	return nil
}

// MaxSay bounds a SAY's payload.
const MaxSay = 64 << 10

// SayRequest is the SAY payload: a prompt to type into the agent whole
// (several lines as one paste), then Enter.
type SayRequest struct {
	Request uint32 `json:"request"`
	Text    string `json:"text"`
}

// SayResult is the SAY_RESP payload: the prompt was typed (OK), or not
// (Error says why; Busy: because the agent is not waiting at its prompt
// or someone is typing into it — a client may send it again later).
type SayResult struct {
	Request uint32 `json:"request"`
	OK      bool   `json:"ok"`
	Busy    bool   `json:"busy,omitempty"`
	Error   string `json:"error,omitempty"`
}

// UnmarshalBinary decodes a SAY_RESP payload.
func (r *SayResult) UnmarshalBinary(b []byte) error {
	*r = SayResult{}
	if err := json.Unmarshal(b, r); err != nil {
		return fmt.Errorf("frame: SAY_RESP: %w", err)
	}
	return nil
}

// MaxAnswer bounds an ANSWER's payload.
const MaxAnswer = 8 << 10

// AnswerRequest is the ANSWER payload: the user's choice for the dialog
// the client saw on the session's screen.
type AnswerRequest struct {
	// Request is echoed in the reply (0: none).
	Request uint32 `json:"request"`
	// Choice is allow, always, deny, option (Option, 1-based) or text
	// (Text, through the dialog's free-text option).
	Choice string `json:"choice"`
	Option int    `json:"option,omitempty"`
	Text   string `json:"text,omitempty"`
	// Question, if set, is the dialog's question as the client saw it:
	// the answer is refused if the screen asks something else now.
	Question string `json:"question,omitempty"`
}

// AnswerResult is the ANSWER_RESP payload: the keys were written (OK,
// with the option chosen and its label) or nothing was (Error says why).
type AnswerResult struct {
	Request  uint32 `json:"request"`
	OK       bool   `json:"ok"`
	Option   int    `json:"option,omitempty"`
	Label    string `json:"label,omitempty"`
	Question string `json:"question,omitempty"`
	Error    string `json:"error,omitempty"`
}

// HelloPayload is a HELLO's payload carrying request id id.
func HelloPayload(id uint32) []byte {
	return []byte{byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id)}
}

// ParseHello reads a HELLO's request id: its payload's four bytes, or 0
// for an empty payload.
func ParseHello(p []byte) (uint32, error) {
	switch len(p) {
	case 0:
		return 0, nil
	case 4:
		return uint32(p[0])<<24 | uint32(p[1])<<16 | uint32(p[2])<<8 | uint32(p[3]), nil
	}
	return 0, fmt.Errorf("frame: HELLO: %d-byte payload, want 0 or 4", len(p))
}

// MarshalBinary encodes h as the HELLO_RESP payload.
func (h HelloInfo) MarshalBinary() ([]byte, error) { return json.Marshal(h) }

// UnmarshalBinary decodes a HELLO_RESP payload.
func (h *HelloInfo) UnmarshalBinary(b []byte) error {
	*h = HelloInfo{} // the fields a payload omits are empty, not what s held
	if err := json.Unmarshal(b, h); err != nil {
		return fmt.Errorf("frame: HELLO_RESP: %w", err)
	}
	return nil
}

// Has reports whether the server serves feature.
func (h HelloInfo) Has(feature string) bool { return slices.Contains(h.Features, feature) }

// PromptInfo is the PROMPT_RESP payload: the dialog on the session's
// screen as ANSWER would read it (Family, Question, Options: option n is
// Options[n-1]; Multi: check boxes), or why there is none (Error).
type PromptInfo struct {
	Family   string   `json:"family,omitempty"`
	Question string   `json:"question,omitempty"`
	Options  []string `json:"options,omitempty"`
	Multi    bool     `json:"multi,omitempty"`
	Error    string   `json:"error,omitempty"`
}

// UnmarshalBinary decodes a PROMPT_RESP payload.
func (p *PromptInfo) UnmarshalBinary(b []byte) error {
	*p = PromptInfo{}
	if err := json.Unmarshal(b, p); err != nil {
		return fmt.Errorf("frame: PROMPT_RESP: %w", err)
	}
	return nil
}

// UnmarshalBinary decodes an ANSWER_RESP payload.
func (r *AnswerResult) UnmarshalBinary(b []byte) error {
	*r = AnswerResult{}
	if err := json.Unmarshal(b, r); err != nil {
		return fmt.Errorf("frame: ANSWER_RESP: %w", err)
	}
	return nil
}
