// Package notify tells the user that a session needs them while no
// dashboard is there to show it (issue 12, "attention when away"): a
// desktop notification through the terminal the dashboard last ran in, a
// command hook, or both (config keys notify and notify_command).
//
// Each session is served by its own detached supervisor (`heimdall-tui
// run`), which has no terminal to write to. So the dashboard records the
// terminal it runs in — CurrentTerminal, SaveTerminal — as
// DIR/.dashboard-terminal.json in the socket directory (a leading dot: no
// session ID starts with one, so scans of DIR for sessions never see it),
// and a supervisor's Notifier later loads it and writes the notification to
// that tty.
//
// Terminal notifications are OSC 9 or OSC 777 (Sequence), with every text
// from the session cleaned of control characters so that a title can never
// inject a sequence, and bounded in length. Inside tmux they are wrapped in
// tmux's passthrough, which tmux ≥ 3.3 passes on only with
// `set -g allow-passthrough on` (the visible pane) or `all` (any pane).
//
// The command hook runs as `/bin/sh -c COMMAND`, as git and Claude Code run
// theirs, with the event in its environment (see Notifier.Notify), bounded
// by a timeout.
//
// The package uses the standard library and x/sys only.
package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// ReasonNeedsInput is Event.Reason's default: the session waits for the
// user (a permission prompt, a question).
const ReasonNeedsInput = "needs input"

// Event is what happened to which session.
type Event struct {
	ID     string // session ID
	Agent  string // agent (spawn preset) name, "" if unknown
	Title  string // the window title the session's program set, "" if none
	Dir    string // the session's working directory
	Reason string // a phrase: "needs input" (ReasonNeedsInput) when empty
	// Detail says what about (the tool and its command, the question, the
	// answer's first line, the error); "" for none: the title stands.
	Detail string
}

func (e Event) reason() string {
	if e.Reason == "" {
		return ReasonNeedsInput
	}
	return e.Reason
}

// Message is the event as one line of text: "ID needs input", followed by
// ": Detail" when the event says what about, else ": Title" when the
// session has a title. It is not cleaned: OSC9, OSC777
// and the command's HEIMDALL_MESSAGE clean it.
func (e Event) Message() string {
	m := e.ID + " " + e.reason()
	switch {
	case e.Detail != "":
		m += ": " + e.Detail
	case e.Title != "":
		m += ": " + e.Title
	}
	return m
}

// Name is the event as an identifier, HEIMDALL_NOTIFY_EVENT for the
// command: the reason in lower case, each run of other characters than
// a–z and 0–9 one '_' ("needs input" → "needs_input").
func (e Event) Name() string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(e.reason()) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if under {
				b.WriteByte('_')
				under = false
			}
			b.WriteRune(r)
			continue
		}
		under = b.Len() > 0
	}
	return b.String()
}

// DefaultTimeout is Options.Timeout's zero value.
const DefaultTimeout = 10 * time.Second

// Options configure a Notifier.
type Options struct {
	// Terminal is the terminal notification's format: "" or FormatOff for
	// none, FormatOSC9 or FormatOSC777 (config key notify).
	Terminal string
	// Dir is the socket directory, where the dashboard saved its terminal
	// (SaveTerminal). Required with Terminal.
	Dir string
	// Command is run with /bin/sh -c for every event, "" for none (config
	// key notify_command).
	Command string
	// Timeout bounds Command: its process group is killed (SIGKILL) after
	// it. Zero means DefaultTimeout.
	Timeout time.Duration
	// Logger gets what the caller cannot act on: a missing terminal
	// (debug), a failed command's output (warn). Nil: discarded.
	Logger *slog.Logger
}

// Notifier sends the notifications Options ask for. It holds no state
// besides its options, so concurrent Notify calls are safe; each opens the
// tty and starts the command anew.
//
// It is built once per supervisor with the socket directory in its
// Options (rather than per call): a run serves one directory, and New can
// check the options before the first event.
type Notifier struct {
	o   Options
	log *slog.Logger
}

// New checks o and returns its Notifier. A Notifier with no terminal
// format and no command is valid and does nothing (Enabled is false).
func New(o Options) (*Notifier, error) {
	if !ValidFormat(o.Terminal) {
		return nil, fmt.Errorf("notify: unknown terminal notification %q (want %q, %q, %q or %q)",
			o.Terminal, "", FormatOff, FormatOSC9, FormatOSC777)
	}
	if o.Terminal == FormatOff {
		o.Terminal = ""
	}
	if o.Terminal != "" && o.Dir == "" {
		return nil, errors.New("notify: terminal notification without a socket directory")
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Notifier{o: o, log: log}, nil
}

// Enabled reports whether Notify sends anything.
func (n *Notifier) Enabled() bool { return n.o.Terminal != "" || n.o.Command != "" }

// Notify sends ev: first to the terminal, then to the command, as Options
// ask. It returns when both are done (the command bounded by
// Options.Timeout and by ctx), with their errors joined; one failing does
// not stop the other.
//
// Terminal: the terminal saved in Options.Dir gets Sequence(format, ev,
// inside tmux). No saved terminal, or a tty that is gone (the terminal was
// closed), is not an error: the dashboard has not run or its terminal went
// away, and that is logged at debug level. A tty that is not a character
// device owned by this process's uid, or not a terminal, is refused with
// an error. The tty is opened O_WRONLY|O_NOCTTY|O_NONBLOCK (it never
// becomes a controlling terminal and a stuck one never blocks) and written
// for at most a second.
//
// Command: `/bin/sh -c Options.Command` with stdin /dev/null, in the
// process's working directory, with the process's environment plus
//
//	HEIMDALL_NOTIFY_EVENT  ev.Name(), e.g. needs_input
//	HEIMDALL_SESSION_ID    ev.ID
//	HEIMDALL_DIR           ev.Dir
//	HEIMDALL_AGENT         ev.Agent
//	HEIMDALL_TITLE         ev.Title
//	HEIMDALL_MESSAGE       ev.Message(), at most 256 bytes
//
// The ID and directory are exact (a hook may pass them on as arguments;
// only NUL, which no environment can hold, is dropped); agent, title and
// message are display text, their control characters made spaces as in a
// terminal notification.
//
// It runs in a process group of its own, and that group ends with it: once
// the shell has exited (or the timeout passed, or ctx is done), whatever is
// left in the group is killed with SIGKILL and reaped. There is no need to
// put the command in the background (Notify's caller does not wait on the
// session's path for it); a program that must outlive it has to leave the
// group (setsid). A command that fails (exit status not 0, killed, not
// started) is an error, and its output (stdout and stderr together, the
// first 4 KiB) is logged at warn level.
func (n *Notifier) Notify(ctx context.Context, ev Event) error {
	var errs []error
	if n.o.Terminal != "" {
		if err := n.toTerminal(ev); err != nil {
			errs = append(errs, err)
		}
	}
	if n.o.Command != "" {
		if err := n.runCommand(ctx, ev); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
