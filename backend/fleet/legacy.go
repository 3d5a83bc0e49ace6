package fleet

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// refreshEvery is the shortest interval between two status refreshes of
// a legacy session while its output flows.
const refreshEvery = 250 * time.Millisecond

// legacy is a pty session served by a supervisor that does not say HELLO —
// hm's, or a heimdall-tui release before it — followed from its output:
// connection a is subscribed (SUBSCRIBE_SCREEN: a repaint of the screen,
// then live output from exactly there; hm's SUBSCRIBE: its scrollback
// replay) and its reader pushes OUTPUT to feed, whose emulator is only a
// viewer (its query replies go nowhere), until EXIT or EOF. feed shares
// the process's emulation limits with the other viewers, and paces the
// reader (the remote session then drops what this subscriber cannot take,
// never waiting for it). Sends (INPUT, RESIZE, KILL, HANGUP) also go on a.
// Connection b is never subscribed: it carries the STATUS and SCREEN
// requests that refresh the session's state, since a's reader would
// swallow their replies. STATE (WATCH_STATE, which an older heimdall-tui
// serves and hm ignores) comes on a too.
//
// Timers: one, armed only after output: it refreshes the status at most
// every refreshEvery while the screen changes and once after the
// classifier's quiet period; then nothing is armed. Info's LastOutput is
// the supervisor's (STATUS idle), so a repaint is not counted as output.
//
// Locking: mu (sockBase's) guards info and the timer's fields; it is never
// held across socket I/O or a call into the Reporter.
type legacy struct {
	*sockBase
	idle time.Duration // the classifier's idle threshold assumed for the quiet refresh

	a    *frame.Client
	b    *frame.Client
	bmu  sync.Mutex // one request at a time on b
	feed *supervisor.Feeder

	primed   bool // the repaint's first frame is in feed already (see read)
	probed   bool // the first SCREEN was sent (bmu)
	noScreen bool // the server does not answer SCREEN (hm): set by the first query

	cbs       sync.WaitGroup // refreshes under way (Add only while !ended)
	closeOnce sync.Once

	lastOut     time.Time   // when OUTPUT last came (the repaint too): schedules refreshes
	timer       *time.Timer // status refresh (see output)
	armed       bool
	armedQuiet  bool // armed for the quiet refresh rather than the throttle
	lastRefresh time.Time
}

// closeConns disconnects both connections (the reader then ends).
func (x *legacy) closeConns() {
	x.closeOnce.Do(func() {
		x.a.Close()
		x.b.Close()
	})
}

// screenProbe bounds the wait for the first SCREEN reply: a server that
// does not know the extension (hm) ignores it.
const screenProbe = 500 * time.Millisecond

// query asks b for the session's status and, unless the server does not
// know SCREEN, its screen (plain text). The first query finds that out: a
// SCREEN unanswered within screenProbe marks the server noScreen (its
// size, title and needs-input are then unknown).
func (x *legacy) query() (session.Status, frame.ScreenInfo, error) {
	x.bmu.Lock()
	defer x.bmu.Unlock()
	x.b.Conn().SetDeadline(time.Now().Add(dialTimeout))
	defer x.b.Conn().SetDeadline(time.Time{})
	ws, err := x.b.Status()
	st := supervisor.StatusFromWire(ws)
	if err != nil || x.noScreen {
		return st, frame.ScreenInfo{}, wrapErr("status", err)
	}
	if !x.probed {
		x.b.Conn().SetDeadline(time.Now().Add(screenProbe))
	}
	si, err := x.b.Screen(false)
	var ne net.Error
	if !x.probed && errors.As(err, &ne) && ne.Timeout() {
		x.noScreen, err = true, nil
	}
	x.probed = true
	return st, si, wrapErr("screen", err)
}

// dialLegacy connects both connections, learns the session's size, title
// and state, and subscribes a. Its reader is not started yet (start).
func dialLegacy(d Dialer, r Reporter) (*legacy, error) {
	b, err := d.Dial(dialTimeout)
	if err != nil {
		return nil, err
	}
	x := &legacy{sockBase: newSockBase(d, r), b: b}
	st, si, err := x.query()
	if err != nil {
		b.Close()
		return nil, err
	}
	a, err := d.Dial(dialTimeout)
	if err != nil {
		b.Close()
		return nil, err
	}
	x.a = a
	cols, rows := si.Cols, si.Rows
	if cols <= 0 || rows <= 0 { // unknown (no SCREEN): the supervisors' default
		cols, rows = supervisor.DefaultCols, supervisor.DefaultRows
	}
	// A viewer: no Reply, so queries in the output are not answered (the
	// session's own emulator or an attached terminal does that). Dirty
	// goes out once output or a resize is on the local screen.
	x.feed = supervisor.NewFeeder(vt.New(cols, rows, vt.Options{}), r.Dirty)
	if x.noScreen {
		err = a.Subscribe() // its scrollback replay: all it has
	} else {
		x.primed, err = subscribeScreen(a, x.feed)
	}
	if err == nil && !x.noScreen {
		// The state as it changes (a hook shows at once); a server
		// without the extension ignores it, and refresh polls.
		err = a.Send(frame.WatchState, nil)
	}
	if err != nil {
		x.closeConns()
		return nil, err
	}
	now := time.Now()
	x.info = session.Info{
		Kind:       session.KindPty,
		PID:        st.PID,
		State:      st.State,
		NeedsInput: si.NeedsInput,
		Attention:  si.Attention,
		StateSince: now.Add(-st.StateFor),
		LastOutput: now.Add(-st.Idle),
		Alive:      true, // EXIT on a says otherwise
		Cols:       cols,
		Rows:       rows,
		Title:      si.Title,
	}
	supervisor.ApplyAgentState(&x.info, si.AgentState)
	x.timer = time.AfterFunc(time.Hour, x.refresh)
	x.timer.Stop()
	return x, nil
}

// subscribeScreen subscribes a so that its output starts with a repaint
// of the session's screen (SUBSCRIBE_SCREEN), then goes on from exactly
// there: the viewer shows the session's screen at once, not a replay. The
// repaint is always the first frame, so a STATUS sent after it is
// answered after it; a server that answers STATUS first ignored
// SUBSCRIBE_SCREEN (hm, or an older heimdall-tui) and gets SUBSCRIBE, its
// scrollback replay, instead. The repaint's first frame, read here, goes
// to feed (pushed reports it).
func subscribeScreen(a *frame.Client, feed *supervisor.Feeder) (pushed bool, err error) {
	err = exchange(a, []frame.Type{frame.SubscribeScreen}, func(fr frame.Frame, _ bool) (bool, error) {
		switch fr.Type {
		case frame.StatusResp:
			return true, a.Subscribe()
		case frame.Output:
			feed.Push(fr.Payload) // its payload is ours: feed keeps it
			pushed = true
			return true, nil
		}
		return true, fmt.Errorf("subscribe: unexpected %v first", fr.Type)
	})
	return pushed, err
}

// exchange sends frames of types ts (empty payloads), then STATUS, and
// hands what comes back to each, frame by frame (first: the first frame;
// it is STATUS_RESP when the server ignored ts, as one that does not know
// an extension does), until each is done or has had the STATUS_RESP, all
// within dialTimeout.
func exchange(c *frame.Client, ts []frame.Type, each func(fr frame.Frame, first bool) (done bool, err error)) error {
	for _, t := range ts {
		if err := c.Send(t, nil); err != nil {
			return err
		}
	}
	if err := c.Send(frame.Status, nil); err != nil {
		return err
	}
	c.Conn().SetReadDeadline(time.Now().Add(dialTimeout))
	defer c.Conn().SetReadDeadline(time.Time{})
	for first := true; ; first = false {
		fr, err := c.Next()
		if err != nil {
			return err
		}
		if done, err := each(fr, first); done || err != nil || fr.Type == frame.StatusResp {
			return err
		}
	}
}

func (x *legacy) Send(in session.Input) error { return x.a.Input(in.Data) }

// Stop sends KILL (the session's own supervisor applies its grace), or
// with force SIGKILLs the session's process group itself.
func (x *legacy) Stop(force bool) error {
	if force {
		return x.killGroup(x.a.Kill)
	}
	return x.a.Kill()
}

// Hangup disconnects: the session belongs to another process and keeps
// running.
func (x *legacy) Hangup() { x.closeConns() }

// HangupTerminal asks the session's supervisor to hang it up (HANGUP).
func (x *legacy) HangupTerminal() error { return x.a.Hangup() }

func (x *legacy) Screen() *vt.Snapshot { return x.ScreenInto(nil) }

func (x *legacy) ScreenInto(dst *vt.Snapshot) *vt.Snapshot {
	return x.feed.Emulator().SnapshotInto(dst)
}

// start starts the reader.
func (x *legacy) start() { go x.read() }

// read pushes a's OUTPUT to the local emulator until EXIT (the session is
// then Dead) or until the connection ends without one (the session
// vanished, or Hangup disconnected it: Done closes without Exited, and the
// fleet drops the session). Exited is reported, and Done closed, once the
// final screen is in (the supervisor sends it before EXIT).
func (x *legacy) read() {
	x.feed.Start()
	if x.primed {
		x.output()
	}
	exited, code := false, 0
	for {
		x.feed.Pace()
		fr, err := x.a.Next() // its payload is ours: feed or paint keeps it
		if err != nil {
			x.log.Info("followed session disconnected", "sock", x.sock, "err", err)
			break
		}
		if fr.Type == frame.Output {
			x.feed.Push(fr.Payload)
			x.output()
			continue
		}
		if fr.Type == frame.StateEvent {
			x.pushed(fr.Payload)
			continue
		}
		if fr.Type == frame.Exit {
			c, _ := frame.ParseExit(fr.Payload)
			exited, code = true, int(c)
			break
		}
	}
	now := time.Now()
	x.mu.Lock()
	x.ended = true
	x.timer.Stop()
	if exited {
		x.info.Alive, x.info.ExitCode = false, code
		x.info.State, x.info.StateSince, x.info.NeedsInput = session.Dead, now, false
	}
	x.mu.Unlock()
	x.closeConns()
	x.feed.Close() // no more output: apply what is left
	if exited {
		x.r.Exited(code)
	}
	x.cbs.Wait()
	close(x.done)
}

// pushed applies a STATE the session pushed (WATCH_STATE).
func (x *legacy) pushed(p []byte) {
	var si frame.StateInfo
	if err := si.UnmarshalBinary(p); err != nil {
		x.log.Debug("bad STATE", "err", err)
		return
	}
	st, ok := session.ParseState(si.State)
	if !ok {
		return
	}
	now := time.Now()
	x.mu.Lock()
	if x.ended || !x.info.Alive {
		x.mu.Unlock()
		return
	}
	ch := applyInfo(&x.info, st, now.Add(-time.Duration(si.StateMs)*time.Millisecond), si.NeedsInput, x.info.Title, 0, 0, now)
	if x.info.Attention != si.Attention {
		x.info.Attention, ch = si.Attention, true
	}
	if supervisor.ApplyAgentState(&x.info, si.AgentState) {
		ch = true
	}
	x.mu.Unlock()
	if ch {
		x.r.Changed()
	}
}

// Seen tells the session a user has seen it (SEEN): it is no longer Done.
func (x *legacy) Seen() error { return x.a.Send(frame.Seen, nil) }

// output notes output (feed reports Dirty once it is on the screen): a
// status refresh is scheduled.
func (x *legacy) output() {
	now := time.Now()
	x.mu.Lock()
	x.lastOut = now
	if !x.ended && (!x.armed || x.armedQuiet) {
		x.armed, x.armedQuiet = true, false
		x.timer.Reset(max(0, x.lastRefresh.Add(refreshEvery).Sub(now)))
	}
	x.mu.Unlock()
}

// refresh asks the session for its status and screen (on b) and reports
// what changed. While output keeps coming it re-arms itself refreshEvery
// later; once output stopped, one last time after the classifier's quiet
// period; then nothing is armed.
func (x *legacy) refresh() {
	start := time.Now()
	x.mu.Lock()
	if x.ended {
		x.mu.Unlock()
		return
	}
	x.cbs.Add(1)
	x.armed = false
	x.lastRefresh = start
	x.mu.Unlock()
	defer x.cbs.Done()
	st, si, err := x.query()
	if err != nil {
		x.log.Debug("followed refresh", "sock", x.sock, "err", err)
		return // the reader sees the connection end
	}
	now := time.Now()
	x.mu.Lock()
	if x.ended || !x.info.Alive {
		x.mu.Unlock()
		return
	}
	resized := si.Cols > 0 && si.Rows > 0 && (si.Cols != x.info.Cols || si.Rows != x.info.Rows)
	x.info.PID = st.PID
	since := now.Add(-st.StateFor)
	ch := applyInfo(&x.info, st.State, since, si.NeedsInput, si.Title, si.Cols, si.Rows, now)
	x.info.LastOutput = now.Add(-st.Idle) // the supervisor's: the repaint is not output
	if x.info.Attention != si.Attention {
		x.info.Attention, ch = si.Attention, true
	}
	if supervisor.ApplyAgentState(&x.info, si.AgentState) {
		ch = true
	}
	if !x.armed {
		quietAt := x.lastOut.Add(x.idle + classify.DebounceHold + recheckMargin)
		switch {
		case x.lastOut.After(start):
			x.armed = true
			x.timer.Reset(refreshEvery)
		case now.Before(quietAt):
			x.armed, x.armedQuiet = true, true
			x.timer.Reset(quietAt.Sub(now))
		}
	}
	x.mu.Unlock()
	if resized {
		x.feed.Resize(si.Cols, si.Rows) // Dirty follows from feed
	}
	if ch {
		x.r.Changed()
	}
}

// Resize sends RESIZE and resizes the local emulator at once (the next
// refresh confirms the size).
func (x *legacy) Resize(cols, rows uint16) error {
	if err := x.a.Resize(cols, rows); err != nil {
		return err
	}
	x.feed.Resize(int(cols), int(rows)) // Dirty follows from feed
	x.mu.Lock()
	ch := x.info.Cols != int(cols) || x.info.Rows != int(rows)
	x.info.Cols, x.info.Rows = int(cols), int(rows)
	x.mu.Unlock()
	if ch {
		x.r.Changed()
	}
	return nil
}

// Interrupt types the agent's interrupt key (session.CapInterrupt): Esc
// for claude and codex, whose UIs say "esc to interrupt" (Ctrl-C at
// Claude Code's prompt starts its exit), Ctrl-C — SIGINT to the foreground
// job — for aider, shells and programs whose agent is not known.
func (x *legacy) Interrupt() error {
	x.mu.Lock()
	cls := x.info.Classifier
	x.mu.Unlock()
	return x.a.Input(interruptKey(cls))
}
