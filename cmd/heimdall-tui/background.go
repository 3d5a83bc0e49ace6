package main

import (
	"log/slog"
	"os"
	"runtime"

	"github.com/heimdall-tui/heimdall-tui/backend/prio"
)

// supervisorNice is the nice value a detached supervisor takes once its
// program runs (prio.Background: its threads and, leading its session, its
// autogroup). Under a flood the dashboard, which the user types into, then
// gets the CPU first: with 16 sessions flooding on 2 cores the supervisors
// at nice 0 left it ~7% of a core and a keypress took ~90 ms to show
// (heimdall-loadcheck -only busy; nice 10 still left p50 35–47 ms, 19 gave
// 18 ms before the renderer drew keys at once, 3–5 ms after); niced,
// floods go as fast as the CPU the dashboard leaves them (their programs
// are paced by their supervisors), and when nothing else wants the CPU a
// niced supervisor runs as fast as before. See docs/ARCHITECTURE.md,
// "Priorities under floods".
const supervisorNice = 19

// background lowers a detached supervisor's priority (see supervisorNice)
// and runs its Go code on one P (see supervisorProcs); a foreground run,
// whose terminal the user types into, keeps both. The program started
// before, and keeps the user's priority. A failure is logged: the session
// runs at the priority it has.
func background(detached bool, logger *slog.Logger) {
	if !detached {
		return
	}
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(supervisorProcs)
	}
	if err := prio.Background(supervisorNice); err != nil {
		logger.Warn("lower priority", "err", err)
	}
}

// supervisorProcs is how many Ps (threads running Go code at once) a
// detached supervisor uses, unless GOMAXPROCS says otherwise. Its work is
// a chain of hand-offs (pty reader → screen feeder, socket writers) with
// little to do at each: with a P per core, each hand-off wakes an idle P's
// thread, which spins looking for work and parks again (the scheduler's
// findRunnable and netpoll were ~24% of a supervisor's CPU under a 64 MiB
// cat, perf). On one P the woken goroutine runs when the current one
// parks: BenchmarkRunThroughput, 2 cores, 3 pairs side by side: supervisor
// CPU 7.2–7.5 → 5.0–5.9 ms/MB, run/raw 0.72–0.77 → 0.80–0.89. Nothing a
// supervisor does holds its P long: every descriptor is non-blocking
// (rawio), and the feeder gives the P up between slices of emulation
// (writeSlice, ~0.1 ms).
const supervisorProcs = 1
