package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/notify"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
)

func newRunCmd(a *app) *cobra.Command {
	var (
		detach, dash, fg, spawned bool
		id                        string
		classifier                string
		agent                     string
		workdir                   string
		env                       []string
		cols, rows                uint16
		noHooks                   bool
	)
	cmd := &cobra.Command{
		Use:   "run [--detach] --id ID [flags] -- PROG [ARGS...]",
		Short: "Start one program in a pty, served on DIR/ID.sock by a supervisor of its own",
		Long: "run starts PROG in a new pty under a supervisor process of its own, which serves it on\n" +
			"DIR/ID.sock until it exits. Without --detach this terminal is attached to it: Ctrl-\\\n" +
			"detaches and gives the terminal back (the session keeps running; heimdall-tui attach ID\n" +
			"comes back), and when the program exits run exits with its code. With --detach run returns\n" +
			"as soon as the session is served: exit 0 if it started, else the reason and its code.\n" +
			"With --foreground run is the supervisor itself, in the foreground, with no terminal\n" +
			"attached (for service managers and scripts that wait): it exits with the program's code,\n" +
			"and SIGINT/SIGTERM to it kill the session.",
		Example: "  heimdall-tui run --id claude-1 --classifier claude --workdir ~/src/app -- claude\n" +
			"  heimdall-tui run --detach --id build -- make -j8",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() > 0 {
				return fmt.Errorf("unexpected arguments before --: %q", args[:cmd.ArgsLenAtDash()])
			}
			if detach && fg {
				return errors.New("--detach and --foreground: choose one")
			}
			supervise := dash || fg || spawned // this process is the supervisor
			var procsErr error
			if supervise {
				// Before anything reads the environment (spawnEnv
				// consumes the dashboard's part of it).
				procsErr = onOneProc()
			}
			if classifier == "" {
				classifier = a.cfg.Classifier
			}
			if dash {
				spawned, err := spawnEnv()
				if err != nil {
					return err
				}
				env = append(env, spawned...)
			}
			for _, e := range env {
				if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
					return fmt.Errorf("--env %q: want NAME=value", e)
				}
			}
			o := runOptions{detach: supervise, dashboard: dash, spawned: dash || spawned, id: id, classifier: classifier,
				agent: agent, workdir: workdir, env: env, cols: cols, rows: rows, argv: args, hooks: !noHooks && a.cfg.HooksFor(agent),
				procsErr: procsErr}
			// The session runs once the command tree is gone (app.then).
			if supervise {
				a.then = func() error { return a.run(o) }
			} else {
				a.then = func() error { return a.runBackground(o, !detach) }
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&detach, "detach", false, "start the session and return (no terminal attached)")
	f.BoolVar(&fg, "foreground", false, "be the supervisor, in the foreground, with no terminal attached; exit with the program's code")
	// run's own background supervisor (runBackground): detached, and once
	// it is served its stdio goes to /dev/null, so the run waiting on it
	// sees EOF: started (or, if it exited, failed with what it printed).
	f.BoolVar(&spawned, "spawned", false, "started by run in the background")
	f.MarkHidden("spawned")
	f.StringVar(&id, "id", "", "session id (names DIR/ID.sock) (required)")
	f.StringVar(&classifier, "classifier", "", "state classifier: "+strings.Join(classify.Names(), ", ")+" (default from config, else simple)")
	f.StringVar(&workdir, "workdir", "", "working directory of the program (default: current)")
	f.StringVar(&agent, "agent", "", "the agent preset this session runs (shown by the dashboard, used by its restart)")
	f.StringArrayVar(&env, "env", nil, "NAME=value added to the program's environment (repeatable)")
	// A dashboard's spawn: the session is the dashboard's (Record.Dashboard),
	// detached, and once it is served run's stdio goes to /dev/null, so the
	// dashboard reading run's stderr sees EOF: started (or, if run exited,
	// failed with what it printed).
	f.BoolVar(&dash, "dashboard", false, "started by the dashboard (implies --detach)")
	f.MarkHidden("dashboard")
	f.BoolVar(&noHooks, "no-hooks", false, "do not give a Claude Code or codex session hooks (its state then comes from its screen alone)")
	f.Uint16Var(&cols, "cols", supervisor.DefaultCols, "initial pty columns (0: the default)")
	f.Uint16Var(&rows, "rows", supervisor.DefaultRows, "initial pty rows (0: the default)")
	cmd.MarkFlagRequired("id")
	return cmd
}

type runOptions struct {
	detach, dashboard     bool // no terminal attached; started by a dashboard (Record.Dashboard)
	spawned               bool // started by a dashboard or by run: stdio released once served
	hooks                 bool // the agent reports to its supervisor (agenthooks.go)
	id, classifier, agent string
	workdir               string
	env                   []string
	cols, rows            uint16
	argv                  []string
	procsErr              error // onOneProc's failure, for the session's log
}

// run is the `run` subcommand: check the options, claim the ID and start
// the session (Host), serve it, attach or wait, and exit with the child's
// code. It is one function of ~90 lines on purpose: it reads top to bottom
// in the order hm's run does these steps, each with its exit code, and the
// deferred clean-up of each step sits next to it.
func (a *app) run(o runOptions) error {
	if o.workdir != "" {
		if fi, err := os.Stat(o.workdir); err != nil || !fi.IsDir() {
			return fmt.Errorf("working directory %s: not a directory (--workdir)", o.workdir)
		}
	}
	now := time.Now()
	cls, err := classify.New(o.classifier, a.cfg.IdleThreshold, now)
	if err != nil {
		return err
	}
	dir := a.dir()
	cfg := a.cfg.Session()
	cfg.ID, cfg.Argv, cfg.Dir = o.id, o.argv, o.workdir
	cfg.Env = append(cfg.Env, o.env...)
	// 0 means unset, as in hm: Start fills in DefaultCols/DefaultRows.
	cfg.Cols, cfg.Rows, cfg.Classifier = o.cols, o.rows, cls
	away, err := newAwayNotifier(a.cfg, dir, o)
	if err != nil {
		return err
	}
	cfg.OnAttention = away.fire
	cleanHooks := func() {}
	if o.hooks {
		var env []string
		if cfg.Argv, env, cleanHooks, err = prepareHooks(dir, o); err != nil {
			return err
		}
		cfg.Env = append(cfg.Env, env...)
	}
	var gc *idleGC
	if o.dashboard || o.detach {
		// Garbage made while the session worked (serving a client,
		// a burst of output) goes back to the kernel once it is quiet,
		// and so do its mappings of the binary; the collector then
		// sleeps (gcsleep.go).
		// A failure of dropCodePages leaves the pages mapped: memory,
		// nothing else.
		gc = newIdleGC(gcQuiet, func() { dropCodePages() })
		defer gc.stop()
		cfg.OnScreen = func(uint64) { gc.activity() }
	}
	rk := &recordKeeper{dir: dir}
	cfg.OnConversation = rk.conversation
	bg := newBackground(o.detach)
	cfg.OnTerminals = bg.terminals
	cfg.OnFlood = func(on bool) {
		if gc != nil {
			gc.flood(on) // a flood's garbage is collected less often
		}
		bg.flood(on) // and its program may yield (background.go)
	}
	cfg.OnExiting = bg.exiting // the program's priority back before it is reaped
	// Before the program starts, so that nothing it orphans escapes to
	// init (which in a container may never reap it).
	reapErr := supervisor.EnableSubreaper(nil)
	h, err := supervisor.Host(dir, cfg)
	var startErr *supervisor.StartError
	switch {
	case errors.Is(err, supervisor.ErrAlreadyRunning):
		a.errorf("session %q already running in %s", o.id, dir)
		return exitCode(1)
	case errors.As(err, &startErr):
		cleanHooks()
		a.errorf("%v", err)
		return exitCode(startErr.ExitCode()) // 127 not found, else 126, as a shell

	case err != nil:
		cleanHooks()
		return err
	}
	// From here the hooks file is this session's (with ErrAlreadyRunning
	// it is the running one's, left alone).
	defer cleanHooks()
	sess, logger := h.Session, h.Logger
	if o.procsErr != nil {
		logger.Warn("supervisor runs on more than one P", "err", o.procsErr)
	}
	if reapErr != nil {
		logger.Warn("not a child subreaper: orphans of the session go to init", "err", reapErr)
	} else {
		supervisor.EnableSubreaper(logger) // reaps are logged (debug) in the session's log
	}
	rec := rk.start(startRecord(dir, o, cls.Name(), h, now, a.stderr), h.Logger, h.Owned)
	away.start(sess, rec.Dir, logger)
	go h.Serve()
	defer stopOnSignals(sess, logger)()
	bg.start(sess.PID(), logger)

	if o.spawned {
		// The garbage of starting up goes back to the kernel at the
		// trimmer's first call (5 s from now or after the first screens),
		// not now: each collection leaves the collector's metadata bigger
		// (an idle supervisor collected here too was ~0.4 MiB bigger).
		releaseStdio(logger, supervisor.LogPath(dir, o.id))
	} else {
		fmt.Fprintf(a.stderr, "heimdall-tui: session %q running (pid %d), socket %s\n",
			o.id, sess.PID(), supervisor.SocketPath(dir, o.id))
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
	// reparented to init. A process still running after orphanWait (a
	// daemon the program started) is left to init, as it was before.
	supervisor.ReapOrphans(orphanWait)
	return exitCode(code)
}

// gcQuiet is how long a supervisor's screen stands still before its
// collector sleeps (idleGC): longer than the pauses of an agent at work,
// short enough that a session left idle is small soon.
const gcQuiet = 5 * time.Second

// oneProcEnv marks a supervisor that onOneProc re-executed.
const oneProcEnv = "HEIMDALL_SUPERVISOR_ONE_P"

// onOneProc gives a detached supervisor its supervisorProcs Ps
// (background.go) through the environment, where the runtime reads it as
// it starts: unless GOMAXPROCS is set, it re-executes this process (same
// pid, same descriptors: a dashboard waiting on its stderr sees nothing of
// it) with GOMAXPROCS=supervisorProcs, and the re-executed process removes
// it again before anything starts the program. It returns only if there
// is nothing to do or it failed to re-execute; background.start then sets
// the Ps with runtime.GOMAXPROCS.
//
// Why not that call alone: a supervisor whose runtime started on a P per
// core and was then brought down to one was measured ~0.3 MiB bigger when
// idle than one started on one P (its other P's caches, mark worker and
// threads were made and stay), ~0.33 MiB more per session in all
// (docs/ARCHITECTURE.md, "Small sessions").
func onOneProc() error {
	if _, ok := os.LookupEnv(oneProcEnv); ok {
		os.Unsetenv(oneProcEnv)
		os.Unsetenv("GOMAXPROCS")
		return nil
	}
	if os.Getenv("GOMAXPROCS") != "" || runtime.GOMAXPROCS(0) == supervisorProcs {
		return nil
	}
	env := slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, "GOMAXPROCS=") })
	env = append(env, "GOMAXPROCS="+strconv.Itoa(supervisorProcs), oneProcEnv+"=1")
	// /proc/self/exe: this binary even if its file was replaced since.
	err := syscall.Exec("/proc/self/exe", os.Args, env)
	return fmt.Errorf("re-executing with GOMAXPROCS=%d: %w", supervisorProcs, err)
}

// spawnEnv takes the environment a dashboard's spawn adds to the program
// out of run's own environment (fleet.SpawnEnvVar: not on the command
// line, which other users can read).
func spawnEnv() ([]string, error) {
	v, ok := os.LookupEnv(fleet.SpawnEnvVar)
	if !ok {
		return nil, nil
	}
	os.Unsetenv(fleet.SpawnEnvVar)
	var env []string
	if err := json.Unmarshal([]byte(v), &env); err != nil {
		return nil, fmt.Errorf("%s: %w", fleet.SpawnEnvVar, err)
	}
	return env, nil
}

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

// startRecord writes the session's record (supervisor.Record): what a
// dashboard needs to show and restart it. A failure (a full disk) is said
// on stderr, before run detaches, and logged: the session runs without one
// (a dashboard then guesses from /proc, and cannot list it after a
// reboot).
func startRecord(dir string, o runOptions, classifier string, h *supervisor.Hosted, now time.Time, stderr io.Writer) supervisor.Record {
	wd := o.workdir
	if wd == "" {
		wd, _ = os.Getwd()
	}
	rec := supervisor.Record{ID: o.id, Agent: o.agent, Classifier: classifier, Argv: o.argv, Dir: wd,
		Env: o.env, Dashboard: o.dashboard, PID: h.Session.PID(), Supervisor: os.Getpid(), Started: now}
	if err := supervisor.WriteRecord(dir, rec); err != nil {
		h.Logger.Warn("no session record", "err", err)
		fmt.Fprintf(stderr, "heimdall-tui: warning: session %q runs without its record (%v): it cannot be listed or resumed once it ends\n", o.id, err)
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
func (k *recordKeeper) start(rec supervisor.Record, log *slog.Logger, owned func() bool) supervisor.Record {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.rec, k.log, k.owned, k.started = rec, log, owned, true
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

func newAwayNotifier(cfg config.Config, dir string, o runOptions) (*awayNotifier, error) {
	an := &awayNotifier{ev: notify.Event{ID: o.id, Agent: o.agent}}
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

// orphanWait bounds how long run waits, before it exits, for processes its
// session orphaned to exit (those Finish SIGKILLs die within milliseconds).
const orphanWait = 500 * time.Millisecond

// outFile returns stdout as a file for raw-mode attach (os.Stdout unless a
// test replaced it with a non-file writer).
func outFile(a *app) *os.File {
	if f, ok := a.stdout.(*os.File); ok {
		return f
	}
	return os.Stdout
}
