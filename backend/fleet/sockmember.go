package fleet

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/answer"
	"github.com/heimdall-tui/heimdall-tui/backend/attach"
	"github.com/heimdall-tui/heimdall-tui/backend/launch"
	"github.com/heimdall-tui/heimdall-tui/backend/proc"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// dialTimeout bounds connecting to a session's socket and each exchange
// of the handshake with its supervisor.
const dialTimeout = 2 * time.Second

// A pty session served on a socket in the directory (one this fleet
// launched, or any other) is followed as one of two members, chosen by
// what its supervisor says: followed (external.go) for a supervisor that
// answers HELLO with the state view and the screen pull — one connection,
// pushes only — and legacy (legacy.go) for hm's and earlier releases' —
// the output streamed to a local emulator and the state polled.

// sockMember is what both are: a Member with every capability of a pty
// session.
type sockMember interface {
	Member
	Screener
	screenReuser
	Attacher
	Interrupter
	Seener
	Answerer
	Sayer
	Limiter
	Peeker
	Hanger
	Outliver
	lacker
	recorded
	supervised
	socketed
	base() *sockBase
	start()
}

// sockBase is what both keep: the socket, the reporter, what the fleet
// knows of the session (its record, its supervisor if launched here) and
// its Info.
type sockBase struct {
	sock       string // the socket's path, or for a session of another host its name there
	dialer     Dialer
	r          Reporter
	log        *slog.Logger
	rec        supervisor.Record // the session's record, if it has one
	supervisor *proc.Process     // the session's supervisor, if this process launched it
	done       chan struct{}     // closed once the member's reader has returned

	mu    sync.Mutex
	info  session.Info
	ended bool // the reader is finishing
}

func newSockBase(d Dialer, r Reporter) *sockBase {
	return &sockBase{sock: d.String(), dialer: d, r: r, log: slog.New(slog.DiscardHandler), done: make(chan struct{})}
}

// Dialer connects to a session's supervisor: a socket of this machine's
// socket dir (SocketDialer), or a channel to one of another host's.
type Dialer interface {
	// Dial connects and reads the mode byte, within timeout.
	Dial(timeout time.Duration) (*frame.Client, error)
	// Local reports whether the connection is a socket of this machine
	// (descriptors can be passed: attach hands the terminal over).
	Local() bool
	String() string // for logs
}

// SocketDialer dials a socket path (refusing another user's server).
type SocketDialer string

func (d SocketDialer) Dial(timeout time.Duration) (*frame.Client, error) {
	return frame.Dial(string(d), timeout)
}
func (d SocketDialer) Local() bool    { return true }
func (d SocketDialer) String() string { return string(d) }

func (x *sockBase) base() *sockBase { return x }

func (x *sockBase) Info() session.Info {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.info
}

func (x *sockBase) record() supervisor.Record { return x.rec }

func (x *sockBase) dial(timeout time.Duration) (*frame.Client, error) { return x.dialer.Dial(timeout) }

func (x *sockBase) Done() <-chan struct{} { return x.done }

// RunsOutside implements Outliver: the session is its supervisor's.
func (x *sockBase) RunsOutside() {}

func (x *sockBase) Endpoint() (attach.Endpoint, error) {
	if x.dialer.Local() {
		return attach.Dial(x.sock)
	}
	c, err := x.dialer.Dial(dialTimeout)
	if err != nil {
		return nil, err
	}
	ep, err := attach.NewSocket(c) // another host's: no terminal to hand over, the keys are relayed
	if cd, ok := x.dialer.(commandDialer); ok && err == nil {
		return attach.WithCommand(ep, cd.attachCommand), nil // a terminal goes to ssh -t instead
	}
	return ep, err
}

// commandDialer is a Dialer of another host's session that can name the
// command that attaches a terminal to it there (attach.Commander).
type commandDialer interface {
	attachCommand(detach byte) []string
}

// answerWait bounds an ANSWER's round trip (a supervisor without it never
// replies).
const answerWait = 5 * time.Second

// Answer implements Answerer: an ANSWER on a connection of its own (the
// followed connection only pushes), as `heimdall-tui answer` sends it.
func (x *sockBase) Answer(c answer.Choice, question string) (answer.Given, error) {
	return answerOver(x.dialer, c, question)
}

// Say implements Sayer: a SAY on a connection of its own.
func (x *sockBase) Say(text string) error { return sayOver(x.dialer, text) }

// Peek implements Peeker: a SCREEN on a connection of its own (the
// follower's screen is pulled only while a dashboard draws it).
func (x *sockBase) Peek() ([]string, error) {
	cl, err := x.dialer.Dial(answerWait)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	cl.Conn().SetDeadline(time.Now().Add(answerWait))
	si, err := cl.Screen(false)
	if err != nil {
		return nil, err
	}
	return strings.Split(si.Screen, "\n"), nil
}

// Prompt implements Answerer: a PROMPT on a connection of its own.
func (x *sockBase) Prompt() (answer.Prompt, error) { return promptOver(x.dialer) }

func (x *sockBase) lacks(c session.Caps) string {
	if c == session.CapRestart {
		return "its command line is unknown (not readable from /proc), so it cannot be started again"
	}
	return ""
}

// supervisorDone is closed once the session's supervisor, if this process
// launched it, has exited and been reaped; nil otherwise.
func (x *sockBase) supervisorDone() <-chan struct{} {
	if x.supervisor == nil {
		return nil
	}
	return x.supervisor.Done()
}

// killGroup SIGKILLs the session's process group itself (Stop with force):
// its program leads its own session, so the group's id is its pid. A
// session of another host is not this machine's to signal: its supervisor
// is asked (KILL: SIGTERM, SIGKILL after its grace) instead.
func (x *sockBase) killGroup(kill func() error) error {
	if !x.dialer.Local() {
		return kill()
	}
	x.mu.Lock()
	pid := x.info.PID
	x.mu.Unlock()
	return proc.KillGroup(pid, syscall.SIGKILL)
}

// restartableSock is a followed session whose command line is known (from
// its record, else /proc): Restart launches it again under its ID.
type restartableSock struct {
	sockMember
	f    *Fleet
	spec Spec
}

func (x restartableSock) Restart(r Reporter) (Member, error) {
	return x.f.launch(x.spec.ID, x.spec, r)
}

// dialSock connects to the session on sock and returns it as the member
// its supervisor calls for, its reader not started yet (start). It says
// HELLO, then STATUS: a supervisor that answers HELLO first with the
// state view and the screen pull is followed by push (followed); one that
// answers STATUS first, or lacks those, is hm's or an earlier release's
// (legacy, on connections of its own). idle is the classifier's idle
// threshold a legacy member assumes for its quiet refresh.
func dialSock(d Dialer, r Reporter, idle time.Duration) (sockMember, error) {
	x, err := dialFollowed(d, r)
	if err == nil {
		return x, nil
	}
	if !errors.Is(err, errNoHello) {
		return nil, err
	}
	l, err := dialLegacy(d, r)
	if err != nil {
		return nil, err
	}
	l.idle = idle
	return l, nil
}

// follow dials the session served on id's socket and returns it as a
// followed member reporting to r, described by its record (agent,
// classifier, working dir, command, start, who started it) or, without
// one, by /proc. With wait (its socket was just created) it gives the
// supervisor recordWait to write the record. sup is the supervisor if this
// process launched it. A session whose command is known can be restarted:
// launched again under the same ID.
func (f *Fleet) follow(id string, r Reporter, wait bool, sup *proc.Process) (Member, error) {
	sock := supervisor.SocketPath(f.dir, id)
	m, err := dialSock(SocketDialer(sock), r, f.idle)
	if errors.Is(err, errTranscript) {
		return f.followTranscript(id, SocketDialer(sock), r, wait)
	}
	if err != nil {
		return nil, err
	}
	x := m.base()
	x.log, x.supervisor = f.log, sup
	x.info.ID = id
	rec, ok := f.recordOf(id, x.info.PID, wait)
	if ok {
		x.rec = rec
		x.info.Agent, x.info.Classifier = rec.Agent, rec.Classifier
		x.info.Argv, x.info.Dir, x.info.Worktree = slices.Clone(rec.Argv), rec.Dir, rec.Worktree
		x.info.Started, x.info.Owned = rec.Started, rec.Dashboard
		if x.info.Conversation == "" {
			x.info.Conversation = rec.Conversation
		}
	} else {
		x.info.Argv, x.info.Dir = procInfo(x.info.PID)
		x.info.Agent = f.agentName(x.info.Argv)
		x.info.Started = time.Now()
		if fi, err := os.Lstat(sock); err == nil {
			x.info.Started = fi.ModTime() // when the session's supervisor bound it
		}
	}
	// What a restart starts is read from x.info before the reader and its
	// status refreshes write to it.
	restartable, spec := len(x.info.Argv) > 0, specOf(id, x.info, rec)
	m.start()
	if !restartable {
		return m, nil
	}
	return restartableSock{sockMember: m, f: f, spec: spec}, nil
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
	ps := launch.Presets(f.cfg)
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

// interruptKey is the key that interrupts a turn of an agent read by the
// named classifier.
func interruptKey(classifier string) []byte {
	switch classifier {
	case "claude", "codex":
		return []byte{0x1b}
	}
	return []byte{0x03}
}
