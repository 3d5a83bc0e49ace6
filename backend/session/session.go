// Package session holds the domain types every kind of session shares: its
// state, what the dashboard knows of it (Info, with its Kind and Caps), what
// it reports (Event), and the entries of a transcript. It imports no wire
// package: each protocol maps these to its own types where its frames or
// messages are written (the pty kind's frame protocol in supervisor).
package session

import (
	"fmt"
	"time"
)

// State is what a session's agent is doing, as its classifier (or, for a
// session that reports its own state, its events) says.
type State uint8

const (
	Idle      State = iota // waiting for the user (all kinds)
	Thinking               // an agent is working on a turn, no output yet
	Streaming              // an agent is writing its answer
	ToolUse                // an agent runs a tool
	Active                 // output is flowing (a plain program's only busy state)
	Dead                   // the program has exited (final)
)

var stateNames = [...]string{"Idle", "Thinking", "Streaming", "ToolUse", "Active", "Dead"}

// ParseState is the State named name (String's inverse).
func ParseState(name string) (State, bool) {
	for i, n := range stateNames {
		if n == name {
			return State(i), true
		}
	}
	return Idle, false
}

// String returns the state's name ("Idle", "ToolUse", …).
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// Kind names a kind of session ("pty", and next "headless", …): what the
// list shows and what a disabled action's reason names.
type Kind string

// KindPty is a program in a pseudo-terminal, served on a socket by a
// supervisor (this process's or another's).
const KindPty Kind = "pty"

// KindHeadless is a `claude -p` stream-json session (backend/headless)
// driven in process: a transcript of events, no terminal.
const KindHeadless Kind = "headless"

// KindHeddle is a heddle worker (a heddle binary, `heimdall-tui
// heddle-headless`, any program speaking heddle's headless protocol)
// driven in process: a transcript of events, no terminal.
const KindHeddle Kind = "heddle"

// KindACP is an Agent Client Protocol agent driven by its own supervisor
// (`run --acp`): a transcript of its updates, no terminal.
const KindACP Kind = "acp"

// Caps are the optional things a session can do beyond the basics every
// session has (info, send, stop, hang up, done). A fleet finds them on its
// members by type assertion and lists them here, so a UI can say why an
// action does not apply before trying it.
type Caps uint16

const (
	// CapScreen: the session has a terminal screen (Screen, Resize).
	CapScreen Caps = 1 << iota
	// CapAttach: the session can be attached to interactively.
	CapAttach
	// CapTranscript: the session keeps a transcript of entries (Transcript).
	CapTranscript
	// CapInterrupt: the session's current turn can be interrupted.
	CapInterrupt
	// CapRestart: the session can be started again with the same spec.
	CapRestart
	// CapAnswer: what its agent asks (a dialog on its screen, a
	// permission request) can be answered by choice, without keys.
	CapAnswer
	// CapOutlive: the session runs outside the dashboard's process (a
	// supervisor of its own, a daemon), so it goes on when the dashboard
	// quits unless stopped.
	CapOutlive
)

// Has reports whether every capability in c2 is in c.
func (c Caps) Has(c2 Caps) bool { return c&c2 == c2 }

// ResumesConversation reports whether in, started again, goes on in its
// agent's conversation (a pty agent's --resume, an ACP agent's
// session/resume) rather than with its command alone: its agent reported
// one.
func (in Info) ResumesConversation() bool {
	return in.Conversation != "" && (in.Kind == KindPty || in.Kind == KindACP)
}

// Info is a session as the dashboard shows it. It is a value: a copy taken
// under the fleet's lock.
type Info struct {
	ID   string
	Kind Kind
	Caps Caps
	// Agent is the preset name ("claude", "shell", ...); for sessions found
	// in the socket dir, argv[0]'s base name, or "".
	Agent string
	// Classifier is the classifier's name for sessions classified in this
	// process; "" for those whose state comes from elsewhere.
	Classifier string
	Argv       []string // program and arguments (when known)
	Dir        string   // working directory (when known)
	Worktree   string   // the git worktree made for it, if one was (its top level)
	// Host is the host it runs on ("" for this machine): a session of
	// another host is listed as HOST:ID.
	Host string
	// Owned: started from a dashboard (this one or an earlier one); the
	// quit choice "Stop them" stops it. Sessions a user started with `run`
	// are not.
	Owned      bool
	PID        int // 0 if the session has no process of its own
	State      State
	NeedsInput bool // the agent is waiting for the user (a permission prompt, a question)
	// Attention: it started needing input while no dashboard watched it,
	// and still does; a dashboard that comes back shows it first.
	Attention  bool
	StateSince time.Time // when State (or NeedsInput) last changed
	// LastOutput is when output last reached this process's view of the
	// session (a screen applied it, a transcript entry arrived), or, for a
	// session followed from elsewhere, when its supervisor last had output;
	// zero if none yet.
	LastOutput time.Time
	Started    time.Time
	Alive      bool
	ExitCode   int    // the program's exit code once !Alive (128+signal if killed by one)
	Cols, Rows int    // screen size (CapScreen only)
	Title      string // the session's own title (a terminal title, a topic)

	// What the agent itself reported (its hooks), when it did.
	//
	// Reason says why it waits for the user (with NeedsInput): the tool
	// and its command or file, or the agent's own message.
	Reason string
	// Done: its last turn ended normally and no user has seen the session
	// since (focused it in a dashboard, attached to it).
	Done bool
	// Error is the failure that ended its last turn, while it is idle
	// after it: its kind ("rate_limit"), then what the agent said of it.
	Error string
	// Tool is the tool it runs (ToolUse), if it said.
	Tool string
	// Summary is the first line of its last message, after a turn that
	// ended normally, if it said.
	Summary string
	// Viewed: a user looks at it in some client — a terminal attached to
	// it (attach, a web page) or a dashboard that has it focused. Alerts
	// are not sent for what a user is looking at.
	Viewed bool
	// Conversation is its own conversation id (claude --resume ID).
	Conversation string

	// Usage is the tokens its agent reported using, per day and model
	// (Claude's transcript), oldest day first.
	Usage Usage
	// Resume is what going on with its conversation costs.
	Resume Resume

	// Limited: a usage limit stopped its last turn (Claude's StopFailure
	// rate_limit, or the limit's words on its screen); LimitReset is when
	// the limit said it resets (zero if it did not say). AutoContinue:
	// the agent said it continues by itself then. Parked: the user said
	// nothing is to be sent to it. ContinueAt: a continue is scheduled
	// then (zero: none).
	Limited      bool
	LimitReset   time.Time
	AutoContinue bool
	Parked       bool
	ContinueAt   time.Time

	// Lost: not alive, and its supervisor died without recording an end
	// (killed, or the machine rebooted): nothing says how the program
	// ended. LastSeen is when its supervisor last recorded what it showed
	// (its start if never), Rebooted that the machine has rebooted since.
	Lost     bool
	LastSeen time.Time
	Rebooted bool
}

// Status is a session's state at an instant, as a supervisor reports it.
type Status struct {
	PID      int
	Alive    bool
	State    State
	StateFor time.Duration // time in State
	Idle     time.Duration // time since the last output (or the start)
}

// EventKind says what an Event reports.
type EventKind uint8

const (
	// Added: a session appeared (spawned here or found). Must-deliver.
	Added EventKind = iota
	// Removed: a session left the list. Must-deliver.
	Removed
	// Exited: the program exited; Info has ExitCode. Must-deliver.
	Exited
	// Failed: an error the user should see (Err; ID may be ""). Must-deliver.
	Failed
	// Changed: Info fields other than the screen or transcript changed
	// (state, needs input, title, size). Lossy, coalesced per ID.
	Changed
	// Dirty: the session's screen or transcript changed; Seq is its latest
	// sequence number. Lossy, coalesced per ID.
	Dirty
)

var eventNames = [...]string{"Added", "Removed", "Exited", "Failed", "Changed", "Dirty"}

func (k EventKind) String() string {
	if int(k) < len(eventNames) {
		return eventNames[k]
	}
	return "EventKind(?)"
}

// Event is one backend → UI notification. Anything about one session
// carries its ID; the UI drops IDs it does not know.
type Event struct {
	Kind EventKind
	ID   string
	Seq  uint64 // Dirty only
	Err  error  // Failed only
}

// Input is what the user sends a session. Data is typed as is into a
// terminal; a session that takes messages instead of keystrokes takes it as
// one message's text (without a trailing newline or carriage return).
type Input struct {
	Data []byte
}

// Role says who wrote a transcript entry.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"   // a tool call or its result
	RoleSystem    Role = "system" // the session's own notices (start, errors, results)
)

// Entry is one entry of a session's transcript. Seq numbers grow by one
// per entry from 1; a reader asks for the entries after the last it has.
type Entry struct {
	Seq  uint64
	Time time.Time
	Role Role
	Text string
}

// Describe names a session of kind with its article: "a pty session", "an
// aider session" ("an unknown session" for "").
func (k Kind) Describe() string {
	switch k {
	case KindHeadless:
		return "a headless Claude session"
	case KindHeddle:
		return "a heddle worker session"
	case KindACP:
		return "an ACP agent session"
	}
	name := string(k)
	if name == "" {
		name = "unknown"
	}
	switch name[0] {
	case 'a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U':
		return "an " + name + " session"
	}
	return "a " + name + " session"
}

// Lacks words what a session that has caps cannot do for want: "has no
// terminal", "cannot be restarted", …, for the first of want it lacks
// ("" if it lacks none). The fleet's errors and the dashboard's refusals
// both say it, so they say the same.
func (caps Caps) Lacks(want Caps) string {
	missing := want &^ caps
	switch {
	case missing == 0:
		return ""
	case missing.Has(CapScreen), missing.Has(CapAttach) && !caps.Has(CapScreen):
		return "has no terminal"
	case missing.Has(CapAttach):
		return "cannot be attached to"
	case missing.Has(CapTranscript):
		return "keeps no transcript"
	case missing.Has(CapInterrupt):
		return "cannot be interrupted"
	case missing.Has(CapRestart):
		return "cannot be restarted"
	case missing.Has(CapAnswer):
		return "cannot be answered from here"
	case missing.Has(CapOutlive):
		return "ends with the dashboard"
	}
	return "cannot do that"
}

// Tokens are counts of tokens an agent used, by kind.
type Tokens struct {
	Input, Output, CacheWrite, CacheRead int64
}

// Total is every kind together.
func (t Tokens) Total() int64 { return t.Input + t.Output + t.CacheWrite + t.CacheRead }

// Add is t and u together.
func (t Tokens) Add(u Tokens) Tokens {
	return Tokens{t.Input + u.Input, t.Output + u.Output, t.CacheWrite + u.CacheWrite, t.CacheRead + u.CacheRead}
}

// UsageRow is the tokens of one model on one day (local "2006-01-02").
type UsageRow struct {
	Day, Model string
	Tokens
}

// Usage is a session's tokens, a row per day and model, ordered by day
// then model.
type Usage []UsageRow

// Total is every row together.
func (u Usage) Total() Tokens {
	var t Tokens
	for _, r := range u {
		t = t.Add(r.Tokens)
	}
	return t
}

// Day is the rows of day together.
func (u Usage) Day(day string) Tokens {
	var t Tokens
	for _, r := range u {
		if r.Day == day {
			t = t.Add(r.Tokens)
		}
	}
	return t
}

// Resume is what going on with a conversation costs: the tokens its next
// request re-sends (its context: the last message's input, cache and
// output, as the transcript counted them) and their model; and what
// Claude said as it resumed one (SessionStart with source resume:
// Reported, until the first prompt), whether the prompt cache has likely
// expired and its estimate of re-caching the context in USD (0: none).
type Resume struct {
	Tokens   int64
	Model    string
	Reported bool
	Expired  bool
	USD      float64
}
