package fleet

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/attach"
	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/proc"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

const (
	// dialTimeout bounds connecting to an external socket and each
	// STATUS/SCREEN exchange with it.
	dialTimeout = 2 * time.Second
	// refreshEvery is the shortest interval between two status refreshes of
	// a followed session while its output flows.
	refreshEvery = 250 * time.Millisecond
)

// followed is a pty session a supervisor process serves in the directory
// (one this fleet launched, or any other), followed over its socket.
//
// Connection a pulls the session's screen (WATCH_SCREEN, paints.go): its
// reader goroutine keeps the last PAINT, and a snapshot is drawn from it
// when asked for (ScreenInto, which asks for the next); STATE and EXIT
// come on it too. A supervisor that does not know WATCH_SCREEN (an older
// release) is followed from its output instead: a is subscribed
// (SUBSCRIBE_SCREEN) and its reader pushes OUTPUT (a repaint of the
// session's screen, then live output from exactly there) to feed, whose
// emulator is only a viewer (its query replies go nowhere), until EXIT or
// EOF. feed shares the process's emulation limits with the other viewers,
// and paces the reader (the remote session then drops what this
// subscriber cannot take, never waiting for it); hm's get SUBSCRIBE, their
// scrollback replay. Sends (INPUT, RESIZE, KILL, HANGUP) also go on a.
// Connection b is never subscribed: it carries the STATUS and SCREEN
// requests that refresh the session's state, since a's reader would
// swallow their replies.
//
// Timers: one, armed only after a PAINT or output: it refreshes the status
// (and asks for a PAINT) at most every refreshEvery while the screen
// changes and once after the classifier's quiet period; then nothing is
// armed. Info's LastOutput is the supervisor's (STATUS idle), so a repaint
// is not counted as output.
//
// Locking: mu guards info and the timer's fields; it is never held across
// socket I/O or a call into the Reporter.
type followed struct {
	sock string
	r    Reporter
	log  *slog.Logger
	idle time.Duration // the classifier's idle threshold assumed for the quiet refresh

	a    *frame.Client
	b    *frame.Client
	bmu  sync.Mutex         // one request at a time on b
	feed *supervisor.Feeder // nil when the screen is pulled (paints)
	done chan struct{}      // closed once the reader has returned and no refresh runs

	paints bool       // the server answers WATCH_SCREEN: the screen is pulled
	pmu    sync.Mutex // guards paint and asked
	paint  painting   // the last PAINT
	asked  bool       // a WATCH_SCREEN waits for its PAINT

	primed     bool              // the repaint's first frame is in feed already (see read)
	probed     bool              // the first SCREEN was sent (bmu)
	noScreen   bool              // the server does not answer SCREEN (hm): set by the first query
	rec        supervisor.Record // the session's record, if it has one
	supervisor *proc.Process     // the session's supervisor, if this process launched it

	cbs       sync.WaitGroup // refreshes under way (Add only while !ended)
	closeOnce sync.Once

	mu          sync.Mutex
	info        session.Info
	ended       bool        // the reader is finishing: nothing is armed any more
	lastOut     time.Time   // when OUTPUT last came (the repaint too): schedules refreshes
	timer       *time.Timer // status refresh (see output)
	armed       bool
	armedQuiet  bool // armed for the quiet refresh rather than the throttle
	lastRefresh time.Time
}

// restartableFollowed is a followed session whose command line is known
// (from its record, else /proc): Restart launches it again under its ID.
type restartableFollowed struct {
	*followed
	f    *Fleet
	spec Spec
}

func (x restartableFollowed) Restart(r Reporter) (Member, error) {
	return x.f.launch(x.spec.ID, x.spec, r)
}

// closeConns disconnects both connections (the reader then ends).
func (x *followed) closeConns() {
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
func (x *followed) query() (session.Status, frame.ScreenInfo, error) {
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

// wrapErr is err with what failed, or nil.
func wrapErr(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

// adopt dials the socket of id and, if a live session answers, lists it as
// a followed session. retry covers the instant between a socket file's
// creation and its listen(), when a dial is refused.
func (f *Fleet) adopt(id string, retry bool) {
	f.mu.Lock()
	if f.closed || !f.adoptable(id) {
		f.mu.Unlock()
		return
	}
	f.adopting[id] = true
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.adopting, id)
		f.mu.Unlock()
	}()
	e := &entry{id: id, adopted: true}
	var m Member
	var err error
	for try := 0; ; try++ {
		m, err = f.follow(id, f.reporter(e), retry, nil)
		if err == nil || !retry || try >= 5 || !errors.Is(err, syscall.ECONNREFUSED) {
			break
		}
		time.Sleep(30 * time.Millisecond)
	}
	sock := supervisor.SocketPath(f.dir, id)
	if err != nil {
		if supervisor.SocketStale(sock) {
			f.log.Debug("stale socket ignored", "sock", sock)
		} else {
			f.log.Info("socket not adopted", "sock", sock, "err", err)
		}
		return
	}
	if err := f.register(e, m, nil); err != nil {
		return // register disconnected it
	}
	f.log.Info("external session adopted", "id", id, "pid", m.Info().PID)
}

// dialFollowed connects both connections, learns the session's size, title
// and state, and subscribes a. Its reader is not started yet (start).
func dialFollowed(sock string, r Reporter) (*followed, error) {
	b, err := frame.Dial(sock, dialTimeout)
	if err != nil {
		return nil, err
	}
	x := &followed{sock: sock, r: r, b: b, done: make(chan struct{}), log: slog.New(slog.DiscardHandler)}
	st, si, err := x.query()
	if err != nil {
		b.Close()
		return nil, err
	}
	a, err := frame.Dial(sock, dialTimeout)
	if err != nil {
		b.Close()
		return nil, err
	}
	x.a = a
	cols, rows := si.Cols, si.Rows
	if cols <= 0 || rows <= 0 { // unknown (no SCREEN): the supervisors' default
		cols, rows = supervisor.DefaultCols, supervisor.DefaultRows
	}
	if !x.noScreen {
		x.paint, x.paints, err = watchScreen(a)
	}
	switch {
	case err != nil:
	case x.paints:
		err = a.Send(frame.WatchState, nil)
	default:
		// A viewer: no Reply, so queries in the output are not answered
		// (the session's own emulator or an attached terminal does
		// that). Dirty goes out once output or a resize is on the local
		// screen.
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

// procInfo reads a process's argv and working directory, when readable.
func procInfo(pid int) ([]string, string) {
	if pid <= 0 {
		return nil, ""
	}
	var argv []string
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil {
		for _, a := range bytes.Split(bytes.TrimSuffix(b, []byte{0}), []byte{0}) {
			argv = append(argv, string(a))
		}
		if len(argv) == 1 && argv[0] == "" {
			argv = nil
		}
	}
	dir, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	return argv, dir
}

// agentName names a followed session's agent: a preset whose name or
// program is argv[0]'s base name, else that base name.
func (f *Fleet) agentName(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	base := filepath.Base(argv[0])
	ps := presets(f.cfg)
	for _, p := range ps {
		if p.Name == base {
			return p.Name
		}
	}
	for _, p := range ps {
		if len(p.Argv) > 0 && filepath.Base(p.Argv[0]) == base {
			return p.Name
		}
	}
	return base
}

func (x *followed) Info() session.Info {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.info
}

func (x *followed) Send(in session.Input) error { return x.a.Input(in.Data) }

// Stop sends KILL (the session's own supervisor applies its grace), or
// with force SIGKILLs the session's process group itself.
func (x *followed) Stop(force bool) error {
	if force {
		x.mu.Lock()
		pid := x.info.PID
		x.mu.Unlock()
		// Its child leads its own session, so the group's id is its pid.
		return proc.KillGroup(pid, syscall.SIGKILL)
	}
	return x.a.Kill()
}

// Hangup disconnects: the session belongs to another process and keeps
// running.
func (x *followed) Hangup() { x.closeConns() }

// HangupTerminal asks the session's supervisor to hang it up (HANGUP).
func (x *followed) HangupTerminal() error { return x.a.Hangup() }

func (x *followed) record() supervisor.Record { return x.rec }

func (x *followed) Done() <-chan struct{} { return x.done }

func (x *followed) Screen() *vt.Snapshot { return x.ScreenInto(nil) }

func (x *followed) ScreenInto(dst *vt.Snapshot) *vt.Snapshot {
	if x.feed != nil {
		return x.feed.Emulator().SnapshotInto(dst)
	}
	x.pmu.Lock()
	p := x.paint
	x.pmu.Unlock()
	dst = p.draw(dst)
	x.ask() // drawn: the next, once the screen changes
	return dst
}

func (x *followed) Endpoint() (attach.Endpoint, error) { return attach.Dial(x.sock) }

func (x *followed) lacks(c session.Caps) string {
	if c == session.CapRestart {
		return "its command line is unknown (not readable from /proc), so it cannot be started again"
	}
	return ""
}

// start starts the reader.
func (x *followed) start() { go x.read() }

// read takes a's PAINTs (or pushes its OUTPUT to the local emulator)
// until EXIT (the session is then Dead) or until the connection ends
// without one (the session vanished, Hangup disconnected it, or a bad
// PAINT showed its server broken and read disconnected it: Done closes
// without Exited, and the fleet drops the session). Exited is reported, and Done closed, once the
// final screen is in (the supervisor sends it before EXIT).
func (x *followed) read() {
	if x.feed != nil {
		x.feed.Start()
	}
	if x.primed || x.paints {
		x.output()
	}
	exited, code := false, 0
	var pr paintReader
	for {
		if x.feed != nil {
			x.feed.Pace()
		}
		fr, err := x.a.Next() // its payload is ours: feed or paint keeps it
		if err != nil {
			x.log.Info("followed session disconnected", "sock", x.sock, "err", err)
			break
		}
		if fr.Type == frame.Output && x.feed != nil {
			x.feed.Push(fr.Payload)
			x.output()
			continue
		}
		if fr.Type == frame.Paint {
			p, done, err := pr.add(fr.Payload)
			if err != nil {
				x.log.Warn("bad PAINT: disconnecting from the session", "sock", x.sock, "err", err)
				break
			}
			if done {
				x.painted(p)
			}
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
	if x.feed != nil {
		x.feed.Close() // no more output: apply what is left
	}
	if exited {
		x.r.Exited(code)
	}
	x.cbs.Wait()
	close(x.done)
}

// pushed applies a STATE the session pushed (WATCH_STATE).
func (x *followed) pushed(p []byte) {
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
func (x *followed) Seen() error { return x.a.Send(frame.Seen, nil) }

// output notes output (feed reports Dirty once it is on the screen): a
// status refresh is scheduled.
func (x *followed) output() {
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
func (x *followed) refresh() {
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
	if x.paints {
		x.ask() // a PAINT if the screen changed, shown or not
	}
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
	if resized && x.feed != nil {
		x.feed.Resize(si.Cols, si.Rows) // Dirty follows from feed
	}
	if ch {
		x.r.Changed()
	}
}

// Resize sends RESIZE and resizes the local emulator at once (the next
// refresh confirms the size).
func (x *followed) Resize(cols, rows uint16) error {
	if err := x.a.Resize(cols, rows); err != nil {
		return err
	}
	if x.feed != nil {
		x.feed.Resize(int(cols), int(rows)) // Dirty follows from feed
	} else {
		x.ask() // the screen at its new size
	}
	x.mu.Lock()
	ch := x.info.Cols != int(cols) || x.info.Rows != int(rows)
	x.info.Cols, x.info.Rows = int(cols), int(rows)
	x.mu.Unlock()
	if ch {
		x.r.Changed()
	}
	return nil
}

// applyInfo updates in and reports whether anything the UI shows changed.
func applyInfo(in *session.Info, st session.State, since time.Time, ni bool, title string, cols, rows int, now time.Time) bool {
	ch := false
	if in.State != st || in.NeedsInput != ni {
		if in.State != st {
			in.StateSince = since
		} else {
			in.StateSince = now
		}
		in.State, in.NeedsInput = st, ni
		ch = true
	}
	if in.Title != title {
		in.Title, ch = title, true
	}
	if cols > 0 && rows > 0 && (in.Cols != cols || in.Rows != rows) {
		in.Cols, in.Rows, ch = cols, rows, true
	}
	return ch
}

// supervisorDone is closed once the session's supervisor, if this process
// launched it, has exited and been reaped; nil otherwise.
func (x *followed) supervisorDone() <-chan struct{} {
	if x.supervisor == nil {
		return nil
	}
	return x.supervisor.Done()
}

// Interrupt types the agent's interrupt key (session.CapInterrupt): Esc
// for claude and codex, whose UIs say "esc to interrupt" (Ctrl-C at
// Claude Code's prompt starts its exit), Ctrl-C — SIGINT to the foreground
// job — for aider, shells and programs whose agent is not known.
func (x *followed) Interrupt() error {
	x.mu.Lock()
	cls := x.info.Classifier
	x.mu.Unlock()
	return x.a.Input(interruptKey(cls))
}

// interruptKey is the key that interrupts a turn of an agent read by the
// named classifier.
func interruptKey(classifier string) []byte {
	switch classifier {
	case "claude", "codex":
		return []byte{0x1b}
	}
	return []byte{0x03}
}
