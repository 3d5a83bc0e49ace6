package main

import (
	"log/slog"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/heimdall-tui/heimdall-tui/backend/prio"
)

// supervisorNice is the nice value of a dashboard-spawned supervisor's
// autogroup while no interactive terminal is attached to its session (see
// background). Under a flood the dashboard, which the user types into, then
// gets the CPU first: with 16 sessions flooding on 2 cores, supervisors at
// nice 0 left the dashboard ~7% of a core and a keypress took ~90 ms to
// show (heimdall-loadcheck -only busy); at 19 it took 3–5 ms (with the
// renderer drawing keys at once; nice 10 still left 35–47 ms before that
// change, 19 18 ms). Floods then go as fast as the CPU the dashboard leaves
// them (their programs are paced by their supervisors), and when nothing
// else wants the CPU a niced supervisor runs as fast as before. See
// docs/ARCHITECTURE.md, "Priorities under floods".
const supervisorNice = 19

// floodNice is the nice value of a detached session's program's autogroup
// while it floods its terminal (supervisor.Config.OnFlood: more than
// 512 KiB of output a second) and no interactive terminal is attached.
// Its supervisor paces it, but the program still competes with the
// dashboard for the CPU (its own work, and the kernel's tty processing of
// its writes): with 16 such programs at nice 0 on 2 cores a keypress in
// the dashboard took up to 18–41 ms to show at p99 even once the dashboard
// no longer emulated their output, and 13–18 ms with them at 19
// (heimdall-loadcheck -only busy). Output nobody can read at that rate is
// the one thing that yields: an agent streaming a reply, a build, tests,
// anything that computes without flooding its terminal keep the user's
// priority. A flood gets it back within a second of slowing down, when a
// terminal attaches, and when the program exits (background.exiting: the
// group outlives the program in whatever it left running) — each as soon
// as the kernel takes the change, which it allows one autogroup a tenth
// of a second, machine-wide (prio.Group.Set retries).
const floodNice = 19

// supervisorProcs is how many Ps (threads running Go code at once) a
// detached supervisor uses, unless GOMAXPROCS says otherwise. Its work is
// a chain of hand-offs (pty reader → screen feeder, socket writers) with
// little to do at each: with a P per core, each hand-off woke an idle P's
// thread, which spun looking for work and parked again (the scheduler's
// findRunnable and netpoll were ~24% of a supervisor's CPU under a 64 MiB
// cat, perf). On one P the woken goroutine runs when the current one
// parks: BenchmarkRunThroughput, 2 cores, side by side with the previous
// build: supervisor CPU median 7.5 → 5.5 ms/MB, run/raw 0.77 → 0.87 on a
// loaded machine, unchanged (~0.82) on a quieter one. Nothing a supervisor
// does holds its P long: every descriptor is non-blocking (rawio), and the
// feeder gives the P up between slices of emulation (writeSlice, ~0.1 ms).
// The price: output that is emulated slower than the pty delivers (a flood
// of full-screen redraws) is read and emulated in turn rather than at once
// (BenchmarkRunThroughputRedraw: run/raw 0.38–0.43 → 0.30).
const supervisorProcs = 1

// background is a detached supervisor's priority: its autogroup (which it
// owns when it leads its session, as a dashboard's spawn does) at
// supervisorNice while no interactive terminal is attached, at 0 while one
// is, so keys typed into an attached session go through a supervisor at
// the user's priority however busy the machine is. Its program has an
// autogroup of its own (it leads a session too), at the user's priority
// except while it floods its terminal with no terminal attached (floodNice).
// A foreground run (its terminal is attached from the start) and a
// detached one that shares its session with a shell keep their priority,
// and so do their programs. Only an interactive terminal (ATTACH) counts
// as attached: a session the dashboard shows in a pane, or a client
// watching its output, still yields while it floods, as the dashboard the
// user types into is what must stay responsive (a niced flood still runs
// as fast as the CPU others leave it).
type background struct {
	detached bool
	group    *prio.Group                 // nil: left alone
	log      atomic.Pointer[slog.Logger] // the session's, from start

	mu       sync.Mutex
	started  bool
	attached int
	// The program's group (set by start; nil: left alone), until the
	// program exits (exiting).
	prog     niceGroup
	exited   bool // exiting was called: prog is nil for good
	flooding bool
	// What group and prog were last set to (-1: not yet; a new
	// autogroup is at 0): each is set only when its value changes, as
	// the kernel takes one change of an autogroup a tenth of a second,
	// machine-wide.
	groupNice, progNice int
}

// newBackground returns the policy for a run (detached or not); its
// terminals method goes into the session's Config.OnTerminals, and start is
// called once the program runs.
func newBackground(detached bool) *background {
	b := &background{detached: detached, groupNice: -1}
	if detached {
		b.group = prio.Own(b.warn)
	}
	return b
}

// start takes the priority for the state the session is in (see
// supervisorProcs for the GOMAXPROCS part); pid is the program's.
func (b *background) start(pid int, logger *slog.Logger) {
	b.log.Store(logger)
	if b.detached && os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(supervisorProcs)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	// pid is still the program's here: the program is reaped only after
	// exiting, which takes this lock, and once exiting has run the
	// group is left alone.
	if b.group != nil && !b.exited {
		if g := prio.Of(pid, b.warn); g != nil {
			b.prog = g
		}
	}
	b.started = true
	b.apply()
}

// niceGroup is what background uses of the program's *prio.Group.
type niceGroup interface {
	Set(nice int)
	End(nice int)
}

// exiting is Config.OnExiting: the program has exited and is not reaped
// yet (a flood it left on has ended first, Config.OnFlood). Its autogroup
// outlives it in whatever it left running (a daemon, an orphan that
// ignored the hang-up), so it gets the user's priority back now, while
// the pid still names the program, and is never written again (the pid
// may be another process's once reaped). End waits while the kernel
// refuses the change (one autogroup a tenth of a second, machine-wide) for
// up to ~11 s, which delays the session's exit only when the group is not
// at 0 already; if it still fails (logged as a priority warning), what
// the program left running stays at floodNice until it exits. Every way
// a supervisor ends but one goes through here, as it waits for its
// program (a KILL frame, SIGTERM, the program's own exit); a supervisor
// killed by SIGKILL runs none of it, and its program's group keeps the
// value it had.
func (b *background) exiting() {
	b.mu.Lock()
	prog := b.prog
	b.prog, b.exited = nil, true
	b.mu.Unlock()
	if prog != nil {
		prog.End(0)
	}
}

// warn logs a priority that could not be set.
func (b *background) warn(err error) {
	if l := b.log.Load(); l != nil {
		l.Warn("priority", "err", err)
	}
}

// flood is Config.OnFlood.
func (b *background) flood(on bool) { b.update(func() { b.flooding = on }) }

// terminals is Config.OnTerminals: attached is the number of interactive
// terminals now attached.
func (b *background) terminals(attached int) { b.update(func() { b.attached = attached }) }

// update changes the state (under the lock) and, once started, applies it.
func (b *background) update(change func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	change()
	if b.started {
		b.apply()
	}
}

func (b *background) apply() {
	group, prog := supervisorNice, 0
	switch {
	case b.attached > 0:
		group = 0
	case b.flooding:
		prog = floodNice
	}
	if b.group != nil && group != b.groupNice {
		b.groupNice = group
		b.group.Set(group)
	}
	if b.prog != nil && prog != b.progNice {
		b.progNice = prog
		b.prog.Set(prog)
	}
}
