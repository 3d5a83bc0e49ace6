// Package supervisor runs programs in ptys and serves them over the Heimdall
// frame protocol.
//
// A Session owns one child in its own pty, session and process group. Its pty
// reader never blocks on anyone: each chunk it reads goes, in order, to the
// scrollback ring, to every subscriber's bounded queue (a full queue drops the
// chunk for that subscriber only), to the classifier's timing input and to
// the in-process listeners (which must not block). A Server serves a Session
// on a Unix socket; sockdir.go holds the socket directory's hygiene rules.
package supervisor

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/internal/rawio"
	"github.com/heimdall-tui/heimdall-tui/backend/proc"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/usage"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
)

// Defaults for Config's zero values.
const (
	DefaultScrollback    = 64 << 10
	DefaultKillGrace     = 5 * time.Second
	DefaultSessionEnvVar = "HEIMDALL_SESSION_ID"
	DefaultQueueLen      = 1024 // chunks (≤ 4 KiB each from a pty) per subscriber
	DefaultCols          = 80
	DefaultRows          = 24
	// MaxSide bounds a pty's columns and rows: the emulator keeps cells
	// for every one, and no terminal is larger (the dashboard and the web
	// page clamp to it). A larger size is refused, at start and in Resize.
	MaxSide = 1000

	// After the child exited, output is still read until none comes for
	// drainAfterExit, or until reads took drainMax in all: a background
	// grandchild may hold the pty open, and write, forever. Time the reader
	// spends waiting for its emulator (pacing) does not count, so a slow
	// emulator never loses the end of a program's output.
	drainAfterExit = 250 * time.Millisecond
	drainMax       = 2 * time.Second
)

// ErrExited is returned by operations that need a running child.
var ErrExited = errors.New("session has exited")

// Config describes one session. Zero values take the defaults above.
type Config struct {
	ID            string
	Argv          []string // program and arguments; Argv[0] is looked up in PATH
	Dir           string   // working directory ("" = the supervisor's)
	Env           []string // extra "NAME=value" entries, after the inherited environment
	SessionEnvVar string   // receives the session ID (default HEIMDALL_SESSION_ID)
	Cols, Rows    uint16

	ScrollbackBytes int
	// KillGrace is how long after SIGTERM a still-living process group gets
	// SIGKILL. Negative means SIGKILL at once.
	KillGrace time.Duration
	// KillChildOnly sends kill signals to the child alone instead of its whole
	// process group (the default, as config key kill_process_group = true).
	KillChildOnly bool
	// Classifier derives the state; nil means a simple classifier with
	// IdleThreshold.
	Classifier    classify.Classifier
	IdleThreshold time.Duration
	// QueueLen is each subscriber's queue length in chunks.
	QueueLen int
	Logger   *slog.Logger
	// OnScreen, if set, is called after the emulator has applied output (or
	// a resize) that changed the screen, with the emulator's new Seq: at
	// most every 10 ms while output flows and once it pauses (see
	// screen.observe); Screen, Title, Status and NeedsInput already reflect
	// that screen.
	// It runs on the screen feeder's goroutine: it must return quickly and
	// must not block (the feeder applies nothing while it runs), and it may
	// call those accessors but not Close or Wait. The dashboard uses it to
	// publish "screen dirty" only once the screen can be read.
	OnScreen func(seq uint64)
	// OnAttention, if set, is called when the session starts needing input
	// while nobody watches it (see Attention). It must not block.
	OnAttention func()
	// OnConversation, if set, is called with the agent's conversation id
	// when its signals first name one and when it changes (a /clear, a
	// resume). It must not block.
	OnConversation func(id string)
	// OnTerminals, if set, is called with the number of interactive
	// terminals attached (see TerminalAttached) each time it changes. It
	// must not block. run uses it to give an attached session's supervisor
	// the user's priority back (backend/host).
	OnTerminals func(attached int)
	// Clock is the time a usage limit's reset and a scheduled continue
	// are measured by (nil: the system's).
	Clock Clock
}

func (c *Config) fill() {
	if c.ScrollbackBytes <= 0 {
		c.ScrollbackBytes = DefaultScrollback
	}
	if c.KillGrace == 0 {
		c.KillGrace = DefaultKillGrace
	}
	if c.SessionEnvVar == "" {
		c.SessionEnvVar = DefaultSessionEnvVar
	}
	if c.QueueLen <= 0 {
		c.QueueLen = DefaultQueueLen
	}
	if c.Cols == 0 {
		c.Cols = DefaultCols
	}
	if c.Rows == 0 {
		c.Rows = DefaultRows
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Clock == nil {
		c.Clock = realClock{}
	}
}

// Session is one supervised child in a pty.
type Session struct {
	cfg     Config
	proc    *proc.Process // the child: its group, signals, exit code
	pty     ptyMaster
	started time.Time
	log     *slog.Logger

	wmu sync.Mutex // serialises writes to the pty
	// typed is when input that did not end a line last reached the pty
	// through Write (Unix ns; 0 once a line ended): someone is typing.
	typed atomic.Int64

	mu        sync.Mutex
	ring      *ring
	subs      map[*Subscription]struct{}
	listeners []listener // copy-on-write: the reader uses a snapshot
	nextLID   int
	cls       *classify.Layered // cfg.Classifier under the agent's own signals (signals.go)
	lastOut   time.Time
	cols      uint16
	rows      uint16
	exited    bool
	exitCode  int
	attn      attentionState
	sig       signalState
	lim       limitState // usage limits, parking, scheduled continues, tokens (limit.go)
	clock     Clock

	umu sync.Mutex        // serialises transcript reads (limit.go)
	tr  *usage.Transcript // the agent's transcript, as its hooks name it

	terminals atomic.Int32 // interactive terminals attached (see TerminalAttached)
	viewers   atomic.Int32 // clients that said VIEW (see Viewing)
	tmu       sync.Mutex   // serialises changes of terminals (terminalsChanged)
	reaped    atomic.Bool  // the child has exited: the reader drains (drainAfterExit)

	scr *screen // the terminal emulator and its feeder

	readerDone chan struct{}
	done       chan struct{} // closed once the exit is recorded and all output delivered
}

type listener struct {
	id int
	fn func([]byte)
}

// Start starts cfg.Argv in a new pty and begins reading its output.
func Start(cfg Config) (*Session, error) {
	cfg.fill()
	if len(cfg.Argv) == 0 {
		return nil, errors.New("no program given")
	}
	if err := checkSize(cfg.Cols, cfg.Rows); err != nil {
		return nil, err
	}
	path, err := exec.LookPath(cfg.Argv[0])
	if err != nil {
		return nil, fmt.Errorf("cannot start %q: %w", cfg.Argv[0], err)
	}
	// Check Dir here: a failed chdir in the child is reported by exec as
	// "fork/exec PROGRAM: no such file or directory", naming the wrong file.
	if cfg.Dir != "" {
		if fi, err := os.Stat(cfg.Dir); err != nil {
			return nil, fmt.Errorf("cannot start %q: working directory: %w", cfg.Argv[0], err)
		} else if !fi.IsDir() {
			return nil, fmt.Errorf("cannot start %q: working directory %s is not a directory", cfg.Argv[0], cfg.Dir)
		}
	}
	cmd := exec.Command(path, cfg.Argv[1:]...)
	cmd.Args[0] = cfg.Argv[0]
	cmd.Dir = cfg.Dir
	cmd.Env = append(withoutVars(os.Environ(), "TERM", cfg.SessionEnvVar),
		"TERM=xterm-256color", cfg.SessionEnvVar+"="+cfg.ID)
	cmd.Env = append(cmd.Env, cfg.Env...)
	log := cfg.Logger.With("session", cfg.ID)
	pm, p, err := startInPty(cmd, &pty.Winsize{Cols: cfg.Cols, Rows: cfg.Rows}, proc.Options{
		Ctty: true, Grace: cfg.KillGrace, ChildOnly: cfg.KillChildOnly, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("cannot start %q: %w", cfg.Argv[0], err)
	}
	now := time.Now()
	s := &Session{
		cfg:        cfg,
		proc:       p,
		pty:        pm,
		started:    now,
		log:        log,
		ring:       newRing(cfg.ScrollbackBytes),
		subs:       make(map[*Subscription]struct{}),
		cols:       cfg.Cols,
		rows:       cfg.Rows,
		readerDone: make(chan struct{}),
		done:       make(chan struct{}),
		clock:      cfg.Clock,
		tr:         usage.New(nil),
	}
	inner := cfg.Classifier
	if inner == nil {
		inner = classify.NewSimple(cfg.IdleThreshold, now)
	}
	s.cls = classify.NewLayered(inner)
	if t, ok := inner.(interface{ IdleThreshold() time.Duration }); ok {
		s.sig.quietAfter = t.IdleThreshold() + classify.DebounceHold + 100*time.Millisecond
	}
	s.scr = newScreen(s, int(cfg.Cols), int(cfg.Rows))
	s.scr.YieldTo(s.unread)
	s.log.Info("session started", "pid", p.PID(), "argv", cfg.Argv, "dir", cfg.Dir)
	s.scr.Start()
	go s.readLoop()
	go s.waitLoop()
	return s, nil
}

// startInPty starts cmd as the leader of a new session and process group
// whose controlling terminal is a new pty of size ws, and returns the pty's
// master.
func startInPty(cmd *exec.Cmd, ws *pty.Winsize, o proc.Options) (ptyMaster, *proc.Process, error) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return ptyMaster{}, nil, fmt.Errorf("open pty: %w", err)
	}
	defer tty.Close()  // the child has its own copy
	defer ptmx.Close() // the master is used through its copy below
	if err := pty.Setsize(ptmx, ws); err != nil {
		return ptyMaster{}, nil, fmt.Errorf("pty size: %w", err)
	}
	m, err := newPtyMaster(ptmx)
	if err != nil {
		return ptyMaster{}, nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	p, err := proc.Start(cmd, o) // o.Ctty: the tty on fd 0 becomes the controlling one
	if err != nil {
		m.close()
		return ptyMaster{}, nil, err
	}
	return m, p, nil
}

// ptyMaster is a session's pty master: a non-blocking descriptor of its own
// that the netpoller does not watch, read and written through Pollers
// (rawio.Poller), so that the program reading a key (the pty then signals
// room for output) or the session's idle output side never wake the
// supervisor: only output to read and, while a write waits, room for it.
type ptyMaster struct {
	fd     int
	rd, wr *rawio.Poller
}

// newPtyMaster makes a ptyMaster of a copy of f's descriptor (creack/pty
// leaves f blocking and registered with the netpoller; the caller closes
// it).
func newPtyMaster(f *os.File) (ptyMaster, error) {
	var fd int
	var derr error
	rc, err := f.SyscallConn()
	if err != nil {
		return ptyMaster{}, err
	}
	rc.Control(func(u uintptr) { fd, derr = unix.FcntlInt(u, unix.F_DUPFD_CLOEXEC, 0) })
	if derr != nil {
		return ptyMaster{}, fmt.Errorf("pty: %w", derr)
	}
	m := ptyMaster{fd: fd}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return ptyMaster{}, fmt.Errorf("pty: %w", err)
	}
	if m.rd, err = rawio.NewReadPoller(fd); err != nil {
		unix.Close(fd)
		return ptyMaster{}, fmt.Errorf("pty: %w", err)
	}
	if m.wr, err = rawio.NewWritePoller(fd); err != nil {
		m.rd.Close()
		unix.Close(fd)
		return ptyMaster{}, fmt.Errorf("pty: %w", err)
	}
	return m, nil
}

// readable reports whether the pty has output to read, without waiting.
func (m ptyMaster) readable() bool {
	fds := []unix.PollFd{{Fd: int32(m.fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0 && fds[0].Revents&unix.POLLIN != 0
}

// unread reports whether the pty has output the reader has not read yet
// while the reader runs (the screen feeder then lets it go first, see
// Feeder.YieldTo). The descriptor is open until after the feeder has
// finished (waitLoop).
func (s *Session) unread() bool {
	select {
	case <-s.readerDone:
		return false
	default:
	}
	return s.pty.readable()
}

// close closes the master once no read, write or Do of the Pollers is in
// progress; later ones fail.
func (m ptyMaster) close() {
	m.rd.Close()
	m.wr.Close()
	unix.Close(m.fd)
}

func withoutVars(env []string, names ...string) []string {
	out := env[:0:0]
next:
	for _, kv := range env {
		for _, n := range names {
			if len(kv) > len(n) && kv[:len(n)] == n && kv[len(n)] == '=' {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

// ID returns the session's ID.
func (s *Session) ID() string { return s.cfg.ID }

// PID returns the child's process id.
func (s *Session) PID() int { return s.proc.PID() }

// Done is closed when the child has exited and every byte it wrote has been
// delivered to the ring, the subscribers' queues and the listeners.
func (s *Session) Done() <-chan struct{} { return s.done }

// ExitCode returns the child's exit code (128+signal if a signal killed it)
// once Done is closed; before that it returns -1.
func (s *Session) ExitCode() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.exited {
		return -1
	}
	return s.exitCode
}

// Wait blocks until Done and returns the exit code.
func (s *Session) Wait() int {
	<-s.done
	return s.ExitCode()
}

// readBufs are the pty readers' buffers, shared by all sessions: a read
// borrows one only while the pty has data, so an idle session holds none.
var readBufs = sync.Pool{New: func() any { b := make([]byte, maxChunk); return &b }}

// smallChunk: a read that leaves fewer bytes than this in the buffer was
// short (a pty hands out up to ~4 KiB per read), so the chunk is published
// at once; a flood's reads fill it past this and keep coalescing.
const smallChunk = 1 << 10

// maxChunk bounds one published chunk. A pty delivers at most ~4 KiB per
// read; readLoop coalesces reads while more is immediately available.
const maxChunk = 64 << 10

// readLoop reads the pty until EOF/EIO or the post-exit drain deadline and
// publishes each chunk. It waits for readability through the netpoller
// without holding a buffer, then reads into a pooled one for as long as data
// is immediately available (up to maxChunk: a burst becomes a few large
// chunks, so subscribers and listeners see fewer, bigger writes at no cost
// in latency), and publishes the bytes as a chunk that is never written
// again (takeChunk).
func (s *Session) readLoop() {
	defer close(s.readerDone)
	// Each attempt reads before waiting: RawConn.Read resets the poller's
	// readiness on entry, so an edge that arrived while a chunk was being
	// published would be lost if the first attempt skipped the read.
	var drained time.Duration // time spent reading since the child exited
	for {
		s.scr.Pace()
		var start time.Time
		if s.reaped.Load() {
			left := drainMax - drained
			if left <= 0 {
				return
			}
			start = time.Now()
			s.pty.rd.SetReadDeadline(start.Add(min(drainAfterExit, left)))
		}
		var chunk []byte
		var rerr error
		err := s.pty.rd.RawRead(func(fd int) bool {
			bp := readBufs.Get().(*[]byte)
			buf, n := *bp, 0
			flood, oneP := false, runtime.GOMAXPROCS(0) == 1
			for n < len(buf) {
				k, err := readPty(fd, buf[n:], flood)
				if k > 0 {
					n += k
					flood = oneP && k >= floodRead
					if n < smallChunk {
						// A short read emptied the pty: an echo or a
						// keystroke's effect goes out now, without a
						// read that would only say EAGAIN (the next
						// attempt reads before it waits).
						break
					}
					continue
				}
				if err == unix.EINTR {
					continue
				}
				if err == unix.EAGAIN {
					if n == 0 {
						readBufs.Put(bp)
						return false // wait for readability
					}
				} else if err != nil {
					rerr = err
				} else {
					rerr = io.EOF
				}
				break
			}
			chunk = takeChunk(bp, n)
			return true
		})
		if !start.IsZero() {
			drained += time.Since(start)
		}
		if len(chunk) > 0 {
			s.publish(chunk)
		}
		if err != nil || rerr != nil {
			return // EIO: the child and every holder of the pty are gone
		}
	}
}

// floodRead: a pty read that returned this much found n_tty's read buffer
// (4 KiB; a flood's reads return 4095 bytes) full, so the program writes
// faster than it is read: the next read is made with readPty's flood.
const floodRead = 3 << 10

// readPty reads the pty master (non-blocking). Outside a flood it is a
// raw system call (see rawio: no scheduler hand-off, no wake-up of the
// runtime's monitor thread, for the keystroke path). In a flood on one P
// (flood: the previous read returned floodRead or more, and the process
// runs on one P, as a detached supervisor does) it is a plain one, which
// lets the runtime hand the supervisor's one P to another thread while it
// lasts: such a read finds n_tty's buffer empty and waits in the kernel
// for the kernel's flush worker to refill it (n_tty_read →
// tty_buffer_flush_work), and a raw call held the P, and so the screen
// feeder, through every such wait; with the P handed over (sysmon takes
// it from a system call that lasts, the flood keeps sysmon awake) the
// feeder emulates meanwhile. BenchmarkRunThroughput, 2 cores under other
// load, 40 pairs each alternating builds: run/raw median 0.839 [IQR
// 0.746–0.920] with raw reads only, 0.898 [0.808–0.985] with plain ones
// in floods; the supervisor's CPU alike (5.45 vs 5.38 ms/MB). With more
// Ps the feeder has one of its own, and plain reads only cost:
// BenchmarkThroughput (in-process, 2 Ps), 5 rounds each: throughput alike,
// CPU 0.548 cores with them vs 0.501 without.
func readPty(fd int, p []byte, flood bool) (int, error) {
	if !flood {
		return rawio.Read(fd, p)
	}
	n, err := unix.Read(fd, p)
	return max(n, 0), err
}

// takeChunk returns the n bytes read into *bp as a chunk that is never
// written again, and returns or gives up the buffer. A flood's chunk (the
// buffer nearly full) is the buffer itself, handed over without a copy and
// replaced in the pool by a new one; a shorter one is copied to its exact
// size, so an echo does not pin a whole buffer in the ring's readers and
// queues.
func takeChunk(bp *[]byte, n int) []byte {
	buf := *bp
	if n >= len(buf)-len(buf)/4 {
		return buf[:n:n]
	}
	chunk := append([]byte(nil), buf[:n]...)
	readBufs.Put(bp)
	return chunk
}

func (s *Session) publish(chunk []byte) {
	now := time.Now()
	s.mu.Lock()
	s.ring.Write(chunk)
	s.lastOut = now
	s.cls.Output(now, len(chunk))
	for sub := range s.subs {
		sub.push(chunk)
	}
	// Queued under the lock: ListenScreen's repaint position in the
	// feeder's stream is then exactly where its listener starts. The
	// feeder is woken only after the listeners, which write the chunk to
	// the socket subscribers: an echo leaves before emulation starts.
	s.scr.enqueue(chunk)
	ls := s.listeners
	s.mu.Unlock()
	for _, l := range ls {
		l.fn(chunk)
	}
	s.scr.kick()
}

// waitLoop reaps the child, lets the reader drain what is left, then records
// the exit and closes done.
func (s *Session) waitLoop() {
	code := s.proc.Wait()
	s.reaped.Store(true)
	// Wake a reader blocked in read; from now on it sets its own deadlines.
	s.pty.rd.SetReadDeadline(time.Now().Add(drainAfterExit))
	<-s.readerDone
	s.scr.Close() // Screen shows all output once Done
	s.pty.close()
	now := time.Now()
	s.mu.Lock()
	s.exited, s.exitCode = true, code
	s.cls.Exit(now)
	s.attn.on = false
	if s.attn.timer != nil {
		s.attn.timer.Stop()
	}
	s.sig.stopTimer()
	s.mu.Unlock()
	s.publishState()
	// A pending kill grace (and Hangup's SIGTERM) still runs while members
	// of the child's group outlive it: proc SIGKILLs them.
	s.log.Info("session exited", "pid", s.proc.PID(), "code", code)
	close(s.done)
}

// Write writes p to the pty (INPUT). Concurrent writes are serialised.
func (s *Session) Write(p []byte) (int, error) {
	select {
	case <-s.done:
		return 0, ErrExited
	default:
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if n := len(p); n > 0 && p[n-1] != '\r' && p[n-1] != '\n' {
		s.typed.Store(time.Now().UnixNano())
	} else {
		s.typed.Store(0)
	}
	return s.pty.wr.Write(p)
}

// tryWrite writes p to the pty only if that needs no waiting: not for
// another writer (Write's lock) nor for room in the pty's input. It reports
// whether all of p was written.
func (s *Session) tryWrite(p []byte) bool {
	if !s.wmu.TryLock() {
		return false
	}
	defer s.wmu.Unlock()
	ok := false
	s.pty.wr.Do(func(fd int) { // never wait for the fd to become writable
		n, err := rawio.Write(fd, p)
		ok = err == nil && n == len(p)
	})
	return ok
}

// checkSize refuses a size beyond MaxSide.
func checkSize(cols, rows uint16) error {
	if cols > MaxSide || rows > MaxSide {
		return fmt.Errorf("size %dx%d: a terminal has at most %d columns and %d rows", cols, rows, MaxSide, MaxSide)
	}
	return nil
}

// Resize sets the pty's size; the kernel sends SIGWINCH to the foreground
// process group.
func (s *Session) Resize(cols, rows uint16) error {
	if cols == 0 || rows == 0 {
		return fmt.Errorf("invalid size %dx%d", cols, rows)
	}
	if err := checkSize(cols, rows); err != nil {
		return err
	}
	select {
	case <-s.done:
		return ErrExited
	default:
	}
	var ioErr error
	err := s.pty.wr.Do(func(fd int) {
		ioErr = unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Col: cols, Row: rows})
	})
	if err == nil {
		err = ioErr
	}
	if err != nil {
		return fmt.Errorf("resize: %w", err)
	}
	s.mu.Lock()
	s.cols, s.rows = cols, rows
	s.mu.Unlock()
	s.scr.Resize(int(cols), int(rows))
	s.publishState() // the size is part of the state view
	return nil
}

// TerminalAttached records that an interactive terminal is attached (a
// user's attach, in-process or over the socket) until release is called;
// the user has seen the session (Seen).
// While one is, the emulator leaves queries (DA1, CPR, ...) to it: answering
// too would type a second reply into the program.
func (s *Session) TerminalAttached() (release func()) {
	s.terminalsChanged(1)
	s.Seen()
	var once sync.Once
	return func() { once.Do(func() { s.terminalsChanged(-1) }) }
}

// terminalsChanged counts an interactive terminal in or out and tells
// Config.OnTerminals the count, serialised (tmu) so that the last call has
// the count as it stands.
func (s *Session) terminalsChanged(delta int32) {
	s.tmu.Lock()
	n := s.terminals.Add(delta)
	if fn := s.cfg.OnTerminals; fn != nil {
		fn(int(n))
	}
	s.tmu.Unlock()
	s.publishState() // viewed
}

// Viewing counts a client that shows the session to a user (VIEW 1) in,
// or out (VIEW 0, or its connection's end): STATE says viewed while any
// does, or a terminal is attached.
func (s *Session) Viewing(on bool) {
	if on {
		s.viewers.Add(1)
	} else {
		s.viewers.Add(-1)
	}
	s.publishState()
}

// Screen returns a copy of the session's current screen as its terminal
// emulator shows it (output is processed on the feeder's goroutine, so it
// may trail the pty by a batch).
func (s *Session) Screen() *vt.Snapshot { return s.scr.emu.Snapshot() }

// Repaint returns the session's screen as bytes that draw it on a fresh
// terminal of its size (vt.Emulator.Repaint); after Done, the final screen.
func (s *Session) Repaint() []byte { return s.scr.emu.Repaint() }

// Title returns the window title the program last set (OSC 0/2), as of the
// last batch the emulator applied. It is cheaper than Screen().Title.
func (s *Session) Title() string {
	if t := s.scr.title.Load(); t != nil {
		return *t
	}
	return ""
}

// NeedsInput reports whether the classifier sees the session waiting for
// the user (a permission prompt, a question). The wire reports such a
// session as Idle; the dashboard highlights it.
func (s *Session) NeedsInput() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cls.NeedsInput(time.Now())
}

// Size returns the pty's current size.
func (s *Session) Size() (cols, rows uint16) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cols, s.rows
}

// Kill sends SIGTERM to the child's process group (or the child alone with
// KillChildOnly) and, if the child or its group is still alive after
// KillGrace, SIGKILL. Repeated calls resend SIGTERM but keep the first
// deadline. It is a no-op once the child has exited.
func (s *Session) Kill() error { return s.stop((*proc.Process).Stop) }

// ForceKill is Kill with SIGKILL at once (the kill is recorded first, so
// what is left of the process group is reaped after the exit).
func (s *Session) ForceKill() error { return s.stop((*proc.Process).ForceKill) }

// Hangup stops the session as closing its terminal would: SIGHUP to the
// child's process group (or the child alone with KillChildOnly), which
// ends interactive shells (they ignore SIGTERM) and lets a program clean
// up as on a closed terminal; SIGTERM a second later (at most half the
// grace) if the child or its group is still there (nohup'd programs ignore
// SIGHUP); SIGKILL after KillGrace as with Kill. It is a no-op once the
// child has exited. (proc.Process.Hangup does the work.)
func (s *Session) Hangup() error { return s.stop((*proc.Process).Hangup) }

// stop runs a stop of proc's unless the session has exited.
func (s *Session) stop(how func(*proc.Process) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited {
		return nil
	}
	return how(s.proc)
}

// Signal sends sig to the child's process group (or the child alone with
// KillChildOnly).
func (s *Session) Signal(sig syscall.Signal) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited {
		return ErrExited
	}
	return s.proc.Signal(sig)
}

// Close stops the session: if the child is alive it is hung up as by
// Hangup (as when the terminal it runs in closes); if it has not exited a
// second after the kill grace, the group is SIGKILLed. Once the child has
// exited after a requested kill, whatever is left of its process group is
// SIGKILLed at once (the supervisor is going away and could not enforce
// the grace later). It returns the exit code.
func (s *Session) Close() int {
	s.Hangup()
	select {
	case <-s.done:
	case <-time.After(s.cfg.KillGrace + time.Second):
		s.Signal(syscall.SIGKILL)
		<-s.done
	}
	s.proc.KillRest()
	return s.ExitCode()
}

// Status returns the session's status (what STATUS_RESP carries).
func (s *Session) Status() session.Status {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	st, since := s.cls.State(now)
	last := s.lastOut
	if last.IsZero() {
		last = s.started
	}
	return session.Status{
		PID:      s.proc.PID(),
		Alive:    !s.exited,
		State:    st,
		StateFor: now.Sub(since),
		Idle:     now.Sub(last),
	}
}

// AddListener registers fn to receive every output chunk from now on, on the
// pty reader's goroutine, in order. fn must return quickly and must not call
// back into the session's Subscribe/AddListener; it may keep the chunk (it is
// never modified). The returned func removes the listener.
func (s *Session) AddListener(fn func(chunk []byte)) (remove func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addListenerLocked(fn)
}

func (s *Session) addListenerLocked(fn func(chunk []byte)) (remove func()) {
	s.nextLID++
	id := s.nextLID
	s.listeners = append(append([]listener(nil), s.listeners...), listener{id, fn})
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		ls := make([]listener, 0, len(s.listeners))
		for _, l := range s.listeners {
			if l.id != id {
				ls = append(ls, l)
			}
		}
		s.listeners = ls
	}
}

// Listen is AddListener that also returns the current scrollback, with no
// gap or overlap between the two: fn gets exactly the chunks read after it.
func (s *Session) Listen(fn func(chunk []byte)) (replay []byte, remove func()) {
	// publish writes the ring and snapshots the listeners under s.mu, so
	// taking both here under the same lock is what makes this exact.
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ring.Bytes(), s.addListenerLocked(fn)
}

// ListenScreen registers fn to receive the session's screen and then its
// output: first one chunk, a repaint of the screen (vt.Emulator.Repaint) as
// of a point P in the output stream, then every chunk read after P, in
// order, none missing, none repeated. Written to a fresh emulator of the
// session's size at P, they make it show what the session's emulator shows.
// P is where the stream stands when ListenScreen is called, or a few chunks
// later if the emulator was then in the middle of an escape sequence (see
// Feeder.Repaint); a resize requested before the call is in the repaint.
// For a session whose output has ended, the repaint is of the final
// screen.
//
// fn is called on the screen feeder's goroutine with the repaint (for an
// exited session, on the caller's, before ListenScreen returns) and then on
// the pty reader's; calls never overlap. It must return quickly, must not
// block or call back into the session, and may keep the chunks (they are
// never modified). Chunks read before the repaint is taken wait for it in
// order; the reader never waits for them, and there are at most what the
// feeder has queued and is applying, which pacing bounds (screenPace), plus
// what a repaint waiting for the parser to settle lets pass (settleMax).
// The returned func removes the listener.
func (s *Session) ListenScreen(fn func(chunk []byte)) (remove func()) {
	l := &screenListener{fn: fn}
	s.mu.Lock()
	defer s.mu.Unlock()
	// publish pushes to the feeder and snapshots the listeners under
	// s.mu: the chunks fn gets are exactly those after the repaint's point.
	unlisten := s.addListenerLocked(l.output)
	s.scr.Repaint(l.repaint)
	return func() {
		unlisten()
		l.remove()
	}
}

// Subscription is one subscriber's bounded queue of output chunks.
type Subscription struct {
	s       *Session
	ch      chan []byte
	dropped uint64 // guarded by s.mu
}

// Subscribe returns the current scrollback and a subscription that receives
// every chunk read after it, with no gap or overlap between the two. queue is
// the queue length in chunks (0: the session's default).
func (s *Session) Subscribe(queue int) ([]byte, *Subscription) {
	if queue <= 0 {
		queue = s.cfg.QueueLen
	}
	sub := &Subscription{s: s, ch: make(chan []byte, queue)}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs[sub] = struct{}{}
	return s.ring.Bytes(), sub
}

// push queues chunk without blocking; s.mu is held.
func (sub *Subscription) push(chunk []byte) {
	select {
	case sub.ch <- chunk:
	default:
		sub.dropped++
	}
}

// C delivers the chunks. After the session's Done is closed no more chunks
// arrive, so draining C without blocking then yields the rest.
func (sub *Subscription) C() <-chan []byte { return sub.ch }

// Dropped returns how many chunks were dropped because the queue was full.
func (sub *Subscription) Dropped() uint64 {
	sub.s.mu.Lock()
	defer sub.s.mu.Unlock()
	return sub.dropped
}

// Close unsubscribes.
func (sub *Subscription) Close() {
	sub.s.mu.Lock()
	defer sub.s.mu.Unlock()
	delete(sub.s.subs, sub)
}
