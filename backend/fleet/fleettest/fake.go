// Package fleettest has a fake session kind for tests of the fleet and of
// its users (the dashboard): a Fake has no process and no pty, keeps a
// transcript that a script or the test appends to, reports the states it
// is given, and ends when stopped. It has session.CapTranscript only (no
// screen, attach, resize, interrupt or restart).
package fleettest

import (
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// Kind is a Fake's default session kind.
const Kind session.Kind = "fake"

// Exit codes of a Fake ended by the fleet, as a program ended by that
// signal would report.
const (
	CodeStop   = 128 + 15 // Stop(false): SIGTERM
	CodeKill   = 128 + 9  // Stop(true): SIGKILL
	CodeHangup = 128 + 1  // Hangup: SIGHUP
)

// ErrEnded is Send's error once a Fake has ended.
var ErrEnded = errors.New("fake session has ended")

// Step is one thing a Fake does in a script: wait, change state, append an
// entry, or exit. Build steps with Pause, State, Entry and Exit.
type Step struct {
	pause      time.Duration
	op         stepOp
	state      session.State
	needsInput bool
	role       session.Role
	text       string
	code       int
}

type stepOp uint8

const (
	opPause stepOp = iota
	opState
	opEntry
	opExit
)

// Pause waits d before the next step.
func Pause(d time.Duration) Step { return Step{op: opPause, pause: d} }

// State reports st (needs input false).
func State(st session.State) Step { return Step{op: opState, state: st} }

// NeedsInput reports st with needs input true (a question to the user).
func NeedsInput(st session.State) Step { return Step{op: opState, state: st, needsInput: true} }

// Entry appends an entry of role with text to the transcript.
func Entry(role session.Role, text string) Step { return Step{op: opEntry, role: role, text: text} }

// Exit ends the Fake as if its program exited with code.
func Exit(code int) Step { return Step{op: opExit, code: code} }

// Options configure a Fake.
type Options struct {
	Kind  session.Kind  // "" = Kind
	Agent string        // Info.Agent
	Title string        // Info.Title
	State session.State // the initial state (Idle)
	// Script is played from Start on the Fake's own goroutine.
	Script []Step
	// Reply, if set, gives the steps Send plays after appending the user's
	// entry (e.g. State(Thinking), Pause, Entry(assistant, …), State(Idle)).
	Reply func(text string) []Step
}

// Fake is a fake session member. Its methods are safe for concurrent use.
// It calls its Reporter without holding its lock, as fleet.Member requires.
type Fake struct {
	r     fleet.Reporter
	reply func(string) []Step

	stop chan struct{} // closed once ended
	done chan struct{} // closed once ended and the player returned
	wake chan struct{} // capacity 1: steps were queued

	mu      sync.Mutex
	info    session.Info
	entries []session.Entry
	queue   []Step
	sent    []string
	ended   bool
}

// Start starts a Fake with ID id reporting to r; it is a fleet.StartFunc
// once opts are bound (see Add).
func Start(id string, r fleet.Reporter, opts Options) *Fake {
	kind := opts.Kind
	if kind == "" {
		kind = Kind
	}
	now := time.Now()
	k := &Fake{
		r:     r,
		reply: opts.Reply,
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
		wake:  make(chan struct{}, 1),
		queue: append([]Step(nil), opts.Script...),
		info: session.Info{
			ID: id, Kind: kind, Agent: opts.Agent, Title: opts.Title, Owned: true,
			State: opts.State, StateSince: now, Started: now, Alive: true,
		},
	}
	if len(k.queue) > 0 { // before play runs: it owns the queue under k.mu
		k.signal()
	}
	go k.play()
	return k
}

// Add starts a Fake and adds it to f under id.
func Add(f *fleet.Fleet, id string, opts Options) (*Fake, error) {
	var k *Fake
	err := f.Add(id, func(id string, r fleet.Reporter) (fleet.Member, error) {
		k = Start(id, r, opts)
		return k, nil
	})
	if err != nil {
		return nil, err
	}
	return k, nil
}

func (k *Fake) signal() {
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

// Play queues steps after those not yet played.
func (k *Fake) Play(steps ...Step) {
	k.mu.Lock()
	k.queue = append(k.queue, steps...)
	k.mu.Unlock()
	k.signal()
}

// play runs the queued steps in order until the Fake ends.
func (k *Fake) play() {
	defer close(k.done)
	for {
		k.mu.Lock()
		var st Step
		have := len(k.queue) > 0
		if have {
			st = k.queue[0]
			k.queue = k.queue[1:]
		}
		k.mu.Unlock()
		if !have {
			select {
			case <-k.wake:
				continue
			case <-k.stop:
				return
			}
		}
		switch st.op {
		case opPause:
			t := time.NewTimer(st.pause)
			select {
			case <-t.C:
			case <-k.stop:
				t.Stop()
				return
			}
		case opState:
			k.SetState(st.state, st.needsInput)
		case opEntry:
			k.Append(st.role, st.text)
		case opExit:
			k.end(st.code)
		}
		select {
		case <-k.stop:
			return
		default:
		}
	}
}

// Append adds an entry with the next Seq (1, 2, 3, …) and reports Dirty.
// It returns the entry; after the end it appends nothing (zero Entry).
func (k *Fake) Append(role session.Role, text string) session.Entry {
	k.mu.Lock()
	if k.ended {
		k.mu.Unlock()
		return session.Entry{}
	}
	en := session.Entry{Seq: uint64(len(k.entries) + 1), Time: time.Now(), Role: role, Text: text}
	k.entries = append(k.entries, en)
	k.info.LastOutput = en.Time
	k.mu.Unlock()
	k.r.Dirty(en.Seq)
	return en
}

// SetState reports st and needsInput (Changed, if either differs).
func (k *Fake) SetState(st session.State, needsInput bool) {
	k.mu.Lock()
	ch := !k.ended && (k.info.State != st || k.info.NeedsInput != needsInput)
	if ch {
		k.info.State, k.info.NeedsInput, k.info.StateSince = st, needsInput, time.Now()
	}
	k.mu.Unlock()
	if ch {
		k.r.Changed()
	}
}

// SetTitle reports a new title (Changed).
func (k *Fake) SetTitle(title string) {
	k.mu.Lock()
	ch := !k.ended && k.info.Title != title
	k.info.Title = title
	k.mu.Unlock()
	if ch {
		k.r.Changed()
	}
}

// Exit ends the Fake as if its program exited with code.
func (k *Fake) Exit(code int) { k.end(code) }

// Fail reports err as the session's error (Failed).
func (k *Fake) Fail(err error) { k.r.Failed(err) }

// Sent returns the texts Send took, in order.
func (k *Fake) Sent() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.sent...)
}

// end makes the Fake dead with code: Exited is reported before Done
// closes (the player returns once stop is closed).
func (k *Fake) end(code int) {
	k.mu.Lock()
	if k.ended {
		k.mu.Unlock()
		return
	}
	k.ended = true
	now := time.Now()
	k.info.Alive, k.info.ExitCode = false, code
	k.info.State, k.info.StateSince, k.info.NeedsInput = session.Dead, now, false
	k.mu.Unlock()
	k.r.Exited(code)
	close(k.stop)
}

// Info implements fleet.Member.
func (k *Fake) Info() session.Info {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.info
}

// Send appends a user entry with in.Data (without a trailing newline or
// carriage return) and plays Options.Reply's steps for it.
func (k *Fake) Send(in session.Input) error {
	text := strings.TrimRight(string(in.Data), "\r\n")
	k.mu.Lock()
	if k.ended {
		k.mu.Unlock()
		return ErrEnded
	}
	k.sent = append(k.sent, text)
	k.mu.Unlock()
	k.Append(session.RoleUser, text)
	if k.reply != nil {
		k.Play(k.reply(text)...)
	}
	return nil
}

// Stop ends the Fake at once with CodeStop, or CodeKill with force.
func (k *Fake) Stop(force bool) error {
	if force {
		k.end(CodeKill)
	} else {
		k.end(CodeStop)
	}
	return nil
}

// Hangup ends the Fake with CodeHangup (a fleet closing).
func (k *Fake) Hangup() { k.end(CodeHangup) }

// Done implements fleet.Member.
func (k *Fake) Done() <-chan struct{} { return k.done }

// Transcript returns the entries with Seq > after.
func (k *Fake) Transcript(after uint64) []session.Entry {
	k.mu.Lock()
	defer k.mu.Unlock()
	if after >= uint64(len(k.entries)) {
		return nil
	}
	return append([]session.Entry(nil), k.entries[after:]...)
}

var _ interface {
	fleet.Member
	fleet.Transcripter
} = (*Fake)(nil)
