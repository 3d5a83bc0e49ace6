package fleet

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
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
	// an external session while its output flows.
	refreshEvery = 250 * time.Millisecond
	// restartWait bounds how long restarting an external session waits for
	// its old supervisor to exit and release the ID.
	restartWait = 10 * time.Second
)

// external follows a session another process serves in the directory.
//
// Connection a is subscribed: its reader goroutine pushes OUTPUT (the
// scrollback replay, then live output) to feed, whose emulator is only a
// viewer (its query replies go nowhere), until EXIT or EOF. feed shares
// the process's emulation limits with the owned sessions' screens, and
// paces the reader (the remote session then drops what this subscriber
// cannot take, never waiting for it). Sends
// (INPUT, RESIZE, KILL) also go on a. Connection b is never subscribed: it
// carries the STATUS and SCREEN requests that refresh the session's state,
// since a's reader would swallow their replies.
type external struct {
	a    *frame.Client
	b    *frame.Client
	bmu  sync.Mutex // one request at a time on b
	feed *supervisor.Feeder
	done chan struct{} // closed by close

	// Guarded by the fleet's mutex.
	timer       *time.Timer // status refresh (see scheduleLocked)
	armed       bool
	armedQuiet  bool // armed for the quiet refresh rather than the throttle
	lastRefresh time.Time

	closeOnce sync.Once
}

func (x *external) close() {
	x.closeOnce.Do(func() {
		x.a.Close()
		x.b.Close()
		close(x.done)
	})
}

// query asks b for the session's status and screen (plain text).
func (x *external) query() (session.Status, frame.ScreenInfo, error) {
	x.bmu.Lock()
	defer x.bmu.Unlock()
	x.b.Conn().SetDeadline(time.Now().Add(dialTimeout))
	defer x.b.Conn().SetDeadline(time.Time{})
	ws, err := x.b.Status()
	st := supervisor.StatusFromWire(ws)
	if err != nil {
		return st, frame.ScreenInfo{}, fmt.Errorf("status: %w", err)
	}
	si, err := x.b.Screen(false)
	if err != nil {
		return st, si, fmt.Errorf("screen: %w", err)
	}
	return st, si, nil
}

// adopt dials the socket of id and, if a live session answers, lists it as
// an external session. retry covers the instant between a socket file's
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
	sock := supervisor.SocketPath(f.dir, id)
	var x *external
	var in session.Info
	var err error
	for try := 0; ; try++ {
		x, in, err = dialExternal(sock, func(seq uint64) { f.dirty(id, seq) })
		if err == nil || !retry || try >= 5 || !errors.Is(err, syscall.ECONNREFUSED) {
			break
		}
		time.Sleep(30 * time.Millisecond)
	}
	if err != nil {
		if supervisor.SocketStale(sock) {
			f.log.Debug("stale socket ignored", "sock", sock)
		} else {
			f.log.Info("socket not adopted", "sock", sock, "err", err)
		}
		return
	}
	in.ID = id
	in.Agent = f.agentName(in.Argv)
	if fi, err := os.Lstat(sock); err == nil {
		in.Started = fi.ModTime() // when the session's supervisor bound it
	} else {
		in.Started = time.Now()
	}
	f.mu.Lock()
	if f.closed || f.claiming[id] || (f.sessions[id] != nil && f.sessions[id].info.Alive) {
		f.mu.Unlock()
		x.close()
		return
	}
	e := &entry{info: in, ext: x, spec: Spec{ID: id, Agent: in.Agent, Argv: in.Argv, Dir: in.Dir}}
	x.timer = time.AfterFunc(time.Hour, func() { f.refresh(e) })
	x.timer.Stop()
	f.sessions[id] = e
	f.goLocked(func() { f.readExternal(e) })
	f.mu.Unlock()
	f.log.Info("external session adopted", "id", id, "pid", in.PID)
	f.publish(session.Added, id, nil)
}

// dialExternal connects both connections, learns the session's size, title
// and state, and subscribes a. onScreen is called (on the feeder) after
// output or a resize changed the local screen.
func dialExternal(sock string, onScreen func(seq uint64)) (*external, session.Info, error) {
	var in session.Info
	b, err := frame.Dial(sock, dialTimeout)
	if err != nil {
		return nil, in, err
	}
	x := &external{b: b, done: make(chan struct{})}
	st, si, err := x.query()
	if err != nil {
		b.Close()
		return nil, in, err
	}
	a, err := frame.Dial(sock, dialTimeout)
	if err != nil {
		b.Close()
		return nil, in, err
	}
	x.a = a
	// A viewer: no Reply, so queries in the output are not answered (the
	// session's own emulator or an attached terminal does that).
	x.feed = supervisor.NewFeeder(vt.New(max(si.Cols, 1), max(si.Rows, 1), vt.Options{}), onScreen)
	if err := a.Subscribe(); err != nil {
		x.close()
		return nil, in, err
	}
	now := time.Now()
	in = session.Info{
		Kind:       session.KindPty,
		Caps:       session.CapScreen | session.CapAttach, // and CapRestart once argv is known
		PID:        st.PID,
		State:      st.State,
		NeedsInput: si.NeedsInput,
		StateSince: now.Add(-st.StateFor),
		Alive:      true, // EXIT on a says otherwise
		Cols:       si.Cols,
		Rows:       si.Rows,
		Title:      si.Title,
	}
	in.Argv, in.Dir = procInfo(in.PID)
	if len(in.Argv) > 0 {
		in.Caps |= session.CapRestart
	}
	return x, in, nil
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

// agentName names an external session's agent: a preset whose name or
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

// readExternal pushes a's OUTPUT to the local emulator until EXIT (the
// session is then Dead, listed until Remove) or until the connection ends
// without one (the session vanished: Removed). Either is published once
// all output is on the screen.
func (f *Fleet) readExternal(e *entry) {
	x, id := e.ext, e.info.ID
	x.feed.Start()
	for {
		x.feed.Pace()
		fr, err := x.a.Next() // its payload is ours: feed keeps it
		if err != nil {
			f.mu.Lock()
			gone := !f.closed && f.sessions[id] == e && e.info.Alive
			if gone {
				delete(f.sessions, id)
			}
			x.timer.Stop()
			f.mu.Unlock()
			x.close()
			x.feed.Close() // no more output: apply what is left
			if gone {
				f.log.Info("external session vanished", "id", id, "err", err)
				f.publish(session.Removed, id, nil)
			}
			return
		}
		switch fr.Type {
		case frame.Output:
			x.feed.Push(fr.Payload)
			f.externalOutput(e)
		case frame.Exit:
			code, _ := frame.ParseExit(fr.Payload)
			now := time.Now()
			f.mu.Lock()
			e.info.Alive, e.info.ExitCode = false, int(code)
			e.info.State, e.info.StateSince, e.info.NeedsInput = session.Dead, now, false
			x.timer.Stop()
			listed := f.sessions[id] == e
			f.mu.Unlock()
			x.close()
			x.feed.Close() // no more output: apply what is left
			if listed {
				f.publish(session.Exited, id, nil)
			}
			return
		}
	}
}

// externalOutput notes output from e (its feed publishes Dirty once it is
// on the screen): a status refresh is scheduled.
func (f *Fleet) externalOutput(e *entry) {
	x := e.ext
	now := time.Now()
	f.mu.Lock()
	e.info.LastOutput = now
	if !f.closed && (!x.armed || x.armedQuiet) {
		x.armed, x.armedQuiet = true, false
		x.timer.Reset(max(0, x.lastRefresh.Add(refreshEvery).Sub(now)))
	}
	f.mu.Unlock()
}

// refresh asks an external session for its status and screen (on b) and
// publishes what changed. While output keeps coming it re-arms itself
// refreshEvery later; once output stopped, one last time after the
// classifier's quiet period; then nothing is armed.
func (f *Fleet) refresh(e *entry) {
	if !f.enter() {
		return
	}
	defer f.wg.Done()
	x, id := e.ext, e.info.ID
	start := time.Now()
	f.mu.Lock()
	x.armed = false
	x.lastRefresh = start
	f.mu.Unlock()
	st, si, err := x.query()
	if err != nil {
		f.log.Debug("external refresh", "id", id, "err", err)
		return // the reader sees the connection end
	}
	now := time.Now()
	f.mu.Lock()
	if f.sessions[id] != e || !e.info.Alive || f.closed {
		f.mu.Unlock()
		return
	}
	resized := si.Cols > 0 && si.Rows > 0 && (si.Cols != e.info.Cols || si.Rows != e.info.Rows)
	e.info.PID = st.PID
	since := now.Add(-st.StateFor)
	ch := applyLocked(&e.info, st.State, since, si.NeedsInput, si.Title, si.Cols, si.Rows, now)
	if !x.armed {
		quietAt := e.info.LastOutput.Add(f.idle + classify.DebounceHold + recheckMargin)
		switch {
		case e.info.LastOutput.After(start):
			x.armed = true
			x.timer.Reset(refreshEvery)
		case now.Before(quietAt):
			x.armed, x.armedQuiet = true, true
			x.timer.Reset(quietAt.Sub(now))
		}
	}
	f.mu.Unlock()
	if resized {
		x.feed.Resize(si.Cols, si.Rows) // Dirty follows from feed
	}
	if ch {
		f.changed(id)
	}
}

// resizeExternal sends RESIZE and resizes the local emulator at once (the
// next refresh confirms the size).
func (f *Fleet) resizeExternal(e *entry, cols, rows uint16) error {
	if err := e.ext.a.Resize(cols, rows); err != nil {
		return fmt.Errorf("resize %s: %w", e.info.ID, err)
	}
	e.ext.feed.Resize(int(cols), int(rows)) // Dirty follows from feed
	f.mu.Lock()
	ch := e.info.Cols != int(cols) || e.info.Rows != int(rows)
	e.info.Cols, e.info.Rows = int(cols), int(rows)
	f.mu.Unlock()
	if ch {
		f.changed(e.info.ID)
	}
	return nil
}

// restartExternal kills an external session, waits for its exit and its
// supervisor's release of the ID, then starts its argv in its directory as
// an owned session with the same ID.
func (f *Fleet) restartExternal(e *entry) error {
	f.mu.Lock()
	id, alive, spec, again := e.info.ID, e.info.Alive, e.spec, e.restarting
	if len(spec.Argv) > 0 {
		e.restarting = true
	}
	f.mu.Unlock()
	if len(spec.Argv) == 0 {
		return fmt.Errorf("restart %s: its command line is unknown (not readable from /proc), so it cannot be started again", id)
	}
	if again {
		return nil // a restart is already under way
	}
	if alive {
		if err := e.ext.a.Kill(); err != nil {
			f.restartFailed(e)
			return fmt.Errorf("restart %s: kill: %w", id, err)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	f.goLocked(func() {
		select {
		case <-e.ext.done:
		case <-time.After(restartWait):
			f.restartFailed(e)
			f.publish(session.Failed, id, fmt.Errorf("restart %s: it did not exit", id))
			return
		case <-f.done:
			return
		}
		// Its supervisor removes the socket and drops the pid file's lock
		// after delivering EXIT; until then the claim is refused.
		deadline := time.Now().Add(restartWait)
		for {
			err := f.respawn(e, spec)
			if err == nil || errors.Is(err, ErrClosed) {
				return
			}
			if !errors.Is(err, supervisor.ErrAlreadyRunning) || time.Now().After(deadline) {
				f.restartFailed(e)
				f.publish(session.Failed, id, err)
				return
			}
			select {
			case <-time.After(50 * time.Millisecond):
			case <-f.done:
				return
			}
		}
	})
	return nil
}
