// Package host is `run`: this process becomes one session's supervisor.
// It claims the ID in the socket dir, starts the program in a pty
// (supervisor.Host) with its agent's hooks (package hook), writes the
// session's record, serves the socket until the program exits, records
// how it ended, and returns the program's exit code. Both executables run
// it: heimdall, the small one the dashboard starts supervisors with, and
// heimdall-tui, whose `run` does the same when heimdall is not beside it.
package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/sys/unix"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/hook"
	"github.com/heimdall-tui/heimdall-tui/backend/notify"
	"github.com/heimdall-tui/heimdall-tui/backend/review"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
)

// Options are run's flags (Flags) and what the caller adds.
type Options struct {
	Detach     bool // --detach: start the session and return (the caller's; not the supervisor's)
	Dashboard  bool // --dashboard: started by a dashboard (Record.Dashboard); implies a detached supervisor
	Foreground bool // --foreground: this process is the supervisor, in the foreground
	Spawned    bool // --spawned: started by run in the background
	NoHooks    bool
	ID         string
	Classifier string
	Agent      string
	Workdir    string
	Worktree   string // the git worktree made for it, if one was (its record keeps it)
	Env        []string
	Cols, Rows uint16
	Argv       []string // the program and its arguments (after --)
	// ACP: the program is an Agent Client Protocol agent (--acp): this
	// process is its client (backend/acp), not a pty's supervisor.
	// ACPFS: its file requests served ("read", "write", both); ACPResume:
	// the ACP session to go on with.
	ACP       bool
	ACPFS     string
	ACPResume string
}

// Supervises reports whether this process is the session's supervisor
// (Run), rather than a run that starts one and attaches or returns.
func (o Options) Supervises() bool { return o.Dashboard || o.Foreground || o.Spawned }

// detached reports whether no terminal is attached to the supervisor:
// it was started in the background.
func (o Options) detached() bool { return o.Dashboard || o.Spawned }

// Flags defines run's flags on fs (heimdall-tui's cobra command and
// heimdall's own parser take the same) and returns the Options they fill.
func Flags(fs *pflag.FlagSet) *Options {
	o := &Options{}
	fs.BoolVar(&o.Detach, "detach", false, "start the session and return (no terminal attached)")
	fs.BoolVar(&o.Foreground, "foreground", false, "be the supervisor, in the foreground, with no terminal attached; exit with the program's code")
	// run's own background supervisor (heimdall-tui's runBackground):
	// detached, and once it is served its stdio goes to /dev/null, so the
	// run waiting on it sees EOF: started (or, if it exited, failed with
	// what it printed).
	fs.BoolVar(&o.Spawned, "spawned", false, "started by run in the background")
	fs.MarkHidden("spawned")
	fs.StringVar(&o.ID, "id", "", "session id (names DIR/ID.sock) (required)")
	fs.StringVar(&o.Classifier, "classifier", "", "state classifier: "+strings.Join(classify.Names(), ", ")+" (default from config, else simple)")
	fs.StringVar(&o.Workdir, "workdir", "", "working directory of the program (default: current)")
	fs.StringVar(&o.Worktree, "worktree", "", "the git worktree made for the session (kept in its record)")
	fs.StringVar(&o.Agent, "agent", "", "the agent preset this session runs (shown by the dashboard, used by its restart)")
	fs.StringArrayVar(&o.Env, "env", nil, "NAME=value added to the program's environment (repeatable)")
	// A dashboard's spawn: the session is the dashboard's
	// (Record.Dashboard), detached, and once it is served run's stdio goes
	// to /dev/null, so the dashboard reading run's stderr sees EOF:
	// started (or, if run exited, failed with what it printed).
	fs.BoolVar(&o.Dashboard, "dashboard", false, "started by the dashboard (implies --detach)")
	fs.MarkHidden("dashboard")
	fs.BoolVar(&o.NoHooks, "no-hooks", false, "do not give a Claude Code or codex session hooks (its state then comes from its screen alone)")
	fs.BoolVar(&o.ACP, "acp", false, "the program is an Agent Client Protocol agent: drive it as its client (a transcript, no terminal)")
	fs.StringVar(&o.ACPFS, "acp-fs", "", "with --acp: the agent's file requests served, within the working directory: read, write or read,write (default none)")
	fs.StringVar(&o.ACPResume, "acp-resume", "", "with --acp: the agent's session id to go on with (session/resume or session/load)")
	fs.Uint16Var(&o.Cols, "cols", supervisor.DefaultCols, "initial pty columns (0: the default)")
	fs.Uint16Var(&o.Rows, "rows", supervisor.DefaultRows, "initial pty rows (0: the default)")
	return o
}

// Check completes o from the command line's positional arguments and the
// config, and checks what can be checked before anything starts.
func (o *Options) Check(cfg config.Config, args []string, argsAtDash int) error {
	if argsAtDash > 0 {
		return fmt.Errorf("unexpected arguments before --: %q", args[:argsAtDash])
	}
	if len(args) == 0 {
		return errors.New("no program given (run --id ID -- PROG [ARGS...])")
	}
	if o.ID == "" {
		return errors.New(`required flag(s) "id" not set`)
	}
	if o.Detach && o.Foreground {
		return errors.New("--detach and --foreground: choose one")
	}
	o.Argv = args
	for _, f := range strings.Split(o.ACPFS, ",") {
		if f != "" && f != "read" && f != "write" {
			return fmt.Errorf("--acp-fs %q: want read, write or read,write", o.ACPFS)
		}
	}
	if !o.ACP && (o.ACPFS != "" || o.ACPResume != "") {
		return errors.New("--acp-fs and --acp-resume go with --acp")
	}
	if o.ACP && !o.Foreground && !o.Supervises() {
		o.Detach = true // no terminal to attach: it runs in the background
	}
	if o.Classifier == "" {
		o.Classifier = cfg.Classifier
	}
	if o.detached() {
		spawned, err := SpawnEnv()
		if err != nil {
			return err
		}
		o.Env = append(o.Env, spawned...)
	}
	for _, e := range o.Env {
		if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
			return fmt.Errorf("--env %q: want NAME=value", e)
		}
	}
	return nil
}

// ExitError is Run's failure that has an exit status of its own (the
// shell's 127 for a program not found; 1 for an ID already running), its
// message already printed.
type ExitError int

func (e ExitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// Run is the supervisor: it starts o's session in the socket dir dir,
// serves it until the program exits, and returns the program's exit code.
// What it says before it detaches goes to stderr, prefixed with prog.
func Run(cfg config.Config, dir string, o Options, prog string, stderr io.Writer) (int, error) {
	if o.Workdir != "" {
		if fi, err := os.Stat(o.Workdir); err != nil || !fi.IsDir() {
			return 0, fmt.Errorf("working directory %s: not a directory (--workdir)", o.Workdir)
		}
	}
	if o.ACP {
		return runACP(cfg, dir, o, prog, stderr)
	}
	now := time.Now()
	cls, err := classify.New(o.Classifier, cfg.IdleThreshold, now)
	if err != nil {
		return 0, err
	}
	scfg := cfg.Session()
	scfg.ID, scfg.Argv, scfg.Dir = o.ID, o.Argv, o.Workdir
	scfg.Env = append(scfg.Env, o.Env...)
	// 0 means unset, as in hm: Start fills in DefaultCols/DefaultRows.
	scfg.Cols, scfg.Rows, scfg.Classifier = o.Cols, o.Rows, cls
	away, err := newAwayNotifier(cfg, dir, o)
	if err != nil {
		return 0, err
	}
	scfg.OnAttention = away.fire
	cleanHooks := func() {}
	if !o.NoHooks && cfg.HooksFor(o.Agent) {
		var env []string
		hs := hook.Session{Dir: dir, ID: o.ID, Agent: o.Agent, Classifier: o.Classifier, Argv: scfg.Argv}
		if scfg.Argv, env, cleanHooks, err = hook.Prepare(hs); err != nil {
			return 0, err
		}
		scfg.Env = append(scfg.Env, env...)
	}
	rk := &recordKeeper{dir: dir}
	// Once the screen has stood still a while, the record takes what it
	// shows (a session lost with its supervisor is listed with it), and
	// what a burst of work left behind goes back to the kernel.
	still := newStillTimer(stillAfter, func() {
		if sess := rk.session(); sess != nil {
			sess.ScanLimit() // a limit's words on the screen it stands still on
		}
		rk.checkpoint()
		if o.Supervises() {
			debug.FreeOSMemory()
		}
	})
	defer still.stop()
	scfg.OnScreen = func(uint64) { still.activity() }
	scfg.OnConversation = rk.conversation
	bg := newBackground(o.Supervises())
	scfg.OnTerminals = bg.terminals
	// Before the program starts, so that nothing it orphans escapes to
	// init (which in a container may never reap it).
	reapErr := supervisor.EnableSubreaper(nil)
	base := baseline(o.Workdir)
	h, err := supervisor.Host(dir, scfg)
	var startErr *supervisor.StartError
	switch {
	case errors.Is(err, supervisor.ErrAlreadyRunning):
		fmt.Fprintf(stderr, "%s: session %q already running in %s\n", prog, o.ID, dir)
		return 0, ExitError(1)
	case errors.As(err, &startErr):
		cleanHooks()
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return 0, ExitError(startErr.ExitCode()) // 127 not found, else 126, as a shell
	case err != nil:
		cleanHooks()
		return 0, err
	}
	// From here the hooks file is this session's (with ErrAlreadyRunning
	// it is the running one's, left alone).
	defer cleanHooks()
	sess, logger := h.Session, h.Logger
	if reapErr != nil {
		logger.Warn("not a child subreaper: orphans of the session go to init", "err", reapErr)
	} else {
		supervisor.EnableSubreaper(logger) // reaps are logged (debug) in the session's log
	}
	if base.err != nil && !errors.Is(base.err, review.ErrNotRepo) {
		logger.Warn("no baseline of the working tree", "err", base.err)
	}
	rec := rk.start(startRecord(dir, o, cls.Name(), h, now, base.b, prog, stderr), sess, h.Logger, h.Owned)
	away.start(sess, rec.Dir, logger)
	go h.Serve()
	defer stopOnSignals(sess, logger)()
	bg.start(logger)

	if o.detached() {
		releaseStdio(logger, supervisor.LogPath(dir, o.ID))
	} else {
		fmt.Fprintf(stderr, "%s: session %q running (pid %d), socket %s\n",
			prog, o.ID, sess.PID(), supervisor.SocketPath(dir, o.ID))
	}

	sess.Wait()
	if h.Owned() {
		endRecord(dir, rk.end(), sess, logger)
	} else {
		logger.Warn("the socket dir's files of this session were replaced; no record written")
	}
	// Finish (the child has exited: no kill, no wait) SIGKILLs what is left
	// of the process group after a requested kill, so a grandchild that
	// ignores SIGTERM/SIGHUP does not outlive a killed session.
	code := h.Finish()
	// What the session orphaned is ours (a subreaper's): reap what has
	// exited — and what Finish just SIGKILLed — before we exit and it is
	// reparented to init. A process still running after OrphanWait (a
	// daemon the program started) is left to init, as it was before.
	supervisor.ReapOrphans(OrphanWait)
	return code, nil
}

// SpawnEnvVar carries the environment a spawn adds to the program (a
// preset's, the spec's, and the user's own runtime settings: RuntimeEnv)
// from the dashboard or run to the supervisor, as a JSON array of
// NAME=value: not as `run --env` arguments, which any user can read in
// the process list for as long as the supervisor lives (API keys…).
const SpawnEnvVar = "HEIMDALL_SPAWN_ENV"

// RuntimeEnv is the Go runtime's settings a detached supervisor starts
// with, read by its runtime as it starts (docs/PERFORMANCE.md, "Two
// executables"): one P (its work is a chain of hand-offs with little to do
// at each, and woken idle Ps only spun), and no proportional collector
// but a memory limit (no collection every two minutes in an idle
// session; a flood's garbage collected at the limit, not every few MiB).
// The program must not inherit them: SpawnEnv takes them out of the
// supervisor's environment, and the spawner passes the user's own values,
// if any, in SpawnEnvVar.
var RuntimeEnv = []string{"GOMAXPROCS=1", "GOGC=off", "GOMEMLIMIT=32MiB"}

// SupervisorEnv is the environment a detached supervisor is started
// with: environ with RuntimeEnv's settings in place of its own, and
// SpawnEnvVar carrying program (NAME=value: what the spawn adds to the
// program's environment) and the settings it replaced, which the program
// gets back.
func SupervisorEnv(environ, program []string) ([]string, error) {
	var env []string
	for _, e := range environ {
		if runtimeVar(e) {
			program = append([]string{e}, program...) // the spawn's own win
		} else if !strings.HasPrefix(e, SpawnEnvVar+"=") {
			env = append(env, e)
		}
	}
	js, err := json.Marshal(program)
	if err != nil {
		return nil, err
	}
	return append(append(env, RuntimeEnv...), SpawnEnvVar+"="+string(js)), nil
}

func runtimeVar(e string) bool {
	name, _, _ := strings.Cut(e, "=")
	for _, r := range RuntimeEnv {
		if n, _, _ := strings.Cut(r, "="); n == name {
			return true
		}
	}
	return false
}

// SpawnEnv takes the environment a spawn adds to the program out of this
// process's environment (SpawnEnvVar), and with it the runtime settings
// the spawner gave this process (RuntimeEnv: they took effect as it
// started), so that the program gets the user's.
func SpawnEnv() ([]string, error) {
	v, ok := os.LookupEnv(SpawnEnvVar)
	if !ok {
		return nil, nil
	}
	os.Unsetenv(SpawnEnvVar)
	for _, r := range RuntimeEnv {
		name, _, _ := strings.Cut(r, "=")
		os.Unsetenv(name)
	}
	var env []string
	if err := json.Unmarshal([]byte(v), &env); err != nil {
		return nil, fmt.Errorf("%s: %w", SpawnEnvVar, err)
	}
	return env, nil
}

// stillAfter is how long a session's screen stands still before its
// supervisor records what it shows and returns free memory to the kernel.
const stillAfter = 5 * time.Second

// stillTimer calls fn once the session has been still for d: no screen
// change since. It arms one timer, reset by activity.
type stillTimer struct {
	t *time.Timer
	d time.Duration
}

func newStillTimer(d time.Duration, fn func()) *stillTimer {
	return &stillTimer{t: time.AfterFunc(d, fn), d: d}
}

// activity reports work (cheap: a screen update at most every 10 ms).
func (r *stillTimer) activity() { r.t.Reset(r.d) }

func (r *stillTimer) stop() { r.t.Stop() }

// stopOnSignals makes SIGINT/SIGTERM stop the session (a second one
// SIGKILLs it); SIGHUP (our terminal went away) leaves it running,
// reachable on its socket. The returned func stops listening.
func stopOnSignals(sess *supervisor.Session, logger *slog.Logger) (stop func()) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		stops := 0
		for sig := range sigs {
			if sig == syscall.SIGHUP {
				logger.Info("SIGHUP ignored: session keeps running")
				continue
			}
			stops++
			logger.Info("stop requested", "signal", sig.String())
			if stops == 1 {
				sess.Kill()
			} else {
				sess.ForceKill()
			}
		}
	}()
	return func() { signal.Stop(sigs) }
}

// baselineWait bounds the git work of a session's baseline: the program
// waits for it (it must not change the tree before it is taken).
const baselineWait = 10 * time.Second

// takenBaseline is a baseline, or why there is none.
type takenBaseline struct {
	b   *review.Baseline
	err error
}

// baseline takes the baseline of the git working tree the program is
// about to start in (wd, "" = this process's directory).
func baseline(wd string) takenBaseline {
	if wd == "" {
		wd, _ = os.Getwd()
	}
	ctx, cancel := context.WithTimeout(context.Background(), baselineWait)
	defer cancel()
	b, err := review.Take(ctx, wd)
	if err != nil {
		return takenBaseline{err: err}
	}
	return takenBaseline{b: &b}
}

// startRecord writes the session's record (supervisor.Record): what a
// dashboard needs to show and restart it. A failure (a full disk) is said
// on stderr, before run detaches, and logged: the session runs without one
// (a dashboard then guesses from /proc, and cannot list it after a
// reboot).
func startRecord(dir string, o Options, classifier string, h *supervisor.Hosted, now time.Time, base *review.Baseline, prog string, stderr io.Writer) supervisor.Record {
	wd := o.Workdir
	if wd == "" {
		wd, _ = os.Getwd()
	}
	rec := supervisor.Record{ID: o.ID, Agent: o.Agent, Classifier: classifier, Argv: o.Argv, Dir: wd,
		Env: o.Env, Dashboard: o.Dashboard, PID: h.Session.PID(), Supervisor: os.Getpid(), Started: now, Baseline: base, Worktree: o.Worktree, Boot: supervisor.BootID()}
	if err := supervisor.WriteRecord(dir, rec); err != nil {
		h.Logger.Warn("no session record", "err", err)
		fmt.Fprintf(stderr, "%s: warning: session %q runs without its record (%v): it cannot be listed or resumed once it ends\n", prog, o.ID, err)
	}
	return rec
}

// recordKeeper keeps the session's record up to date with what the
// agent reports while it runs (its conversation id), from the moment run
// wrote it; a report that comes before is applied then.
type recordKeeper struct {
	dir   string
	log   *slog.Logger
	owned func() bool // the session's files are still its own (Hosted.Owned)
	sess  *supervisor.Session

	mu      sync.Mutex
	rec     supervisor.Record
	started bool
	ended   bool
	convo   string
	applied int64 // the last report applied

	reports atomic.Int64 // reports made, in order
}

// start takes the record run wrote, with any conversation id already
// reported.
func (k *recordKeeper) start(rec supervisor.Record, sess *supervisor.Session, log *slog.Logger, owned func() bool) supervisor.Record {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.rec, k.sess, k.log, k.owned, k.started = rec, sess, log, owned, true
	if k.convo != "" {
		k.rec.Conversation = k.convo
		k.write()
	}
	return k.rec
}

// conversation is Config.OnConversation: the id goes into the record
// (written off the caller's goroutine, which must not block).
func (k *recordKeeper) conversation(id string) {
	n := k.reports.Add(1)
	go func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		if n < k.applied { // a later report was written first
			return
		}
		k.applied, k.convo = n, id
		if k.started && !k.ended {
			k.rec.Conversation = id
			k.write()
		}
	}()
}

// session is the session once started (nil before).
func (k *recordKeeper) session() *supervisor.Session {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.sess
}

// checkpoint records what the session shows now (its screen, state and
// reason), for a dashboard to list it with if its supervisor dies without
// recording an end.
func (k *recordKeeper) checkpoint() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.started || k.ended {
		return
	}
	v := k.sess.View()
	cols, rows := k.sess.Size()
	now := time.Now()
	k.rec.Seen, k.rec.State, k.rec.Reason, k.rec.Usage = &now, v.State.String(), v.Reason, v.Usage
	k.rec.Context, k.rec.ContextModel = v.Resume.Tokens, v.Resume.Model
	k.rec.Cols, k.rec.Rows, k.rec.Screen = int(cols), int(rows), string(k.sess.Repaint())
	k.write()
}

func (k *recordKeeper) write() {
	if !k.owned() {
		return // the dir's files are another session's now
	}
	if err := supervisor.WriteRecord(k.dir, k.rec); err != nil {
		k.log.Warn("session record", "err", err)
	}
}

// end returns the record as it stands; later reports leave it alone.
func (k *recordKeeper) end() supervisor.Record {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.ended = true
	return k.rec
}

// endRecord records how the session ended (its exit code, its last
// screen), for a dashboard that was not there to see it (run's terminal,
// which watched it end, removes it: runBackground).
func endRecord(dir string, rec supervisor.Record, sess *supervisor.Session, logger *slog.Logger) {
	now := time.Now()
	cols, rows := sess.Size()
	v := sess.View()
	rec.Usage, rec.Context, rec.ContextModel = v.Usage, v.Resume.Tokens, v.Resume.Model
	rec.Ended, rec.ExitCode = &now, sess.ExitCode()
	rec.Cols, rec.Rows, rec.Screen = int(cols), int(rows), string(sess.Repaint())
	if err := supervisor.WriteRecord(dir, rec); err != nil {
		logger.Warn("session record", "err", err)
	}
}

// releaseStdio points run's stdin and stdout at /dev/null and its stderr
// at the session's log (a panic's trace lands there): the dashboard that
// started it (--dashboard) reads its stderr until EOF to learn that it
// started, and no later write may block on that pipe or fail.
func releaseStdio(logger *slog.Logger, logPath string) {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		logger.Warn("stdio not released", "err", err)
		return
	}
	defer null.Close()
	errTo := null
	if f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND, 0); err == nil {
		defer f.Close()
		errTo = f
	}
	for fd, to := range []*os.File{null, null, errTo} {
		if err := unix.Dup2(int(to.Fd()), fd); err != nil {
			logger.Warn("stdio not released", "fd", fd, "err", err)
		}
	}
}

// awayNotifier tells the user (config notify, notify_command) when the
// session starts needing input while nobody watches it (OnAttention): one
// notification at a time, off the session's path.
type awayNotifier struct {
	n    *notify.Notifier // nil: notifications are off
	ev   notify.Event
	sess atomic.Pointer[supervisor.Session] // set once the session started
	log  atomic.Pointer[slog.Logger]
	busy atomic.Bool
}

func newAwayNotifier(cfg config.Config, dir string, o Options) (*awayNotifier, error) {
	an := &awayNotifier{ev: notify.Event{ID: o.ID, Agent: o.Agent}}
	if cfg.Notify == "" && cfg.NotifyCommand == "" {
		return an, nil
	}
	n, err := notify.New(notify.Options{Terminal: cfg.Notify, Dir: dir, Command: cfg.NotifyCommand})
	if err != nil {
		return nil, fmt.Errorf("notify: %w", err)
	}
	an.n = n
	return an, nil
}

// start arms the notifier for sess, whose program runs in workdir,
// logging to logger.
func (an *awayNotifier) start(sess *supervisor.Session, workdir string, logger *slog.Logger) {
	an.ev.Dir = workdir
	an.log.Store(logger)
	an.sess.Store(sess) // publishes ev and log to fire
}

// fire is Config.OnAttention: it must not block.
func (an *awayNotifier) fire() {
	sess := an.sess.Load()
	if an.n == nil || sess == nil || !an.busy.CompareAndSwap(false, true) {
		return
	}
	ev := an.ev
	ev.Title = sess.Title()
	go func() {
		defer an.busy.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), notify.DefaultTimeout+time.Second)
		defer cancel()
		log := an.log.Load()
		if err := an.n.Notify(ctx, ev); err != nil {
			log.Warn("notification", "err", err)
		} else {
			log.Info("needs input while nobody watches: notified")
		}
	}()
}

// OrphanWait bounds how long a process that reaps what it inherited (a
// supervisor, a dashboard, web) waits, before it exits, for processes its
// session orphaned to exit (those Finish SIGKILLs die within milliseconds).
const OrphanWait = 500 * time.Millisecond
