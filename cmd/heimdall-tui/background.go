package main

import (
	"log/slog"

	"github.com/heimdall-tui/heimdall-tui/backend/prio"
)

// supervisorNice is the nice value a detached supervisor takes once its
// program runs (prio.Background: its threads and, leading its session, its
// autogroup). Under a flood the dashboard, which the user types into, then
// gets the CPU first: with 16 sessions flooding on 2 cores the supervisors
// at nice 0 left it ~7% of a core and a keypress took ~90 ms to show;
// niced, floods go as fast as the CPU the dashboard leaves them (their
// programs are paced by their supervisors), and when nothing else wants the
// CPU a niced supervisor runs as fast as before. See docs/ARCHITECTURE.md,
// "Priorities".
const supervisorNice = 19

// background lowers a detached supervisor's priority (see supervisorNice);
// a foreground run, whose terminal the user types into, keeps its own. The
// program started before, and keeps the user's priority. A failure is
// logged: the session runs at the priority it has.
func background(detached bool, logger *slog.Logger) {
	if !detached {
		return
	}
	if err := prio.Background(supervisorNice); err != nil {
		logger.Warn("lower priority", "err", err)
	}
}
