package host

import (
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/heimdall-tui/heimdall-tui/backend/prio"
)

// SupervisorNice is the nice value of a detached supervisor's autogroup
// while no interactive terminal is attached to its session (background):
// under floods the dashboard, which the user types into, then gets the
// CPU first (docs/PERFORMANCE.md, "Keys under floods"); when nothing
// else wants the CPU a niced supervisor runs as fast as before.
const SupervisorNice = 19

// background is a detached supervisor's priority: its own autogroup
// (which it owns: it leads its session, as a spawn's supervisor does) at
// SupervisorNice while no interactive terminal is attached, at 0 while one
// is, so keys typed into an attached session go through a supervisor at
// the user's priority however busy the machine is. The program has an
// autogroup of its own and keeps the user's priority: a build or test the
// user started is never slowed by heimdall. A foreground run keeps its
// priority.
type background struct {
	group *prio.Group // nil: left alone
	log   atomic.Pointer[slog.Logger]

	mu       sync.Mutex
	started  bool
	attached int
	nice     int // what group was last set to (-1: not yet)
}

// newBackground returns the policy for a supervisor, detached or not; its
// terminals method goes into the session's Config.OnTerminals, and start
// is called once the program runs.
func newBackground(detached bool) *background {
	b := &background{nice: -1}
	if detached {
		b.group = prio.Own(b.warn)
	}
	return b
}

// start takes the priority for the state the session is in.
func (b *background) start(logger *slog.Logger) {
	b.log.Store(logger)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.started = true
	b.apply()
}

func (b *background) warn(err error) {
	if l := b.log.Load(); l != nil {
		l.Warn("priority", "err", err)
	}
}

// terminals is Config.OnTerminals: attached is the number of interactive
// terminals now attached.
func (b *background) terminals(attached int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.attached = attached
	if b.started {
		b.apply()
	}
}

// apply sets the group's value when it changes (the kernel takes one
// change of an autogroup a tenth of a second, machine-wide).
func (b *background) apply() {
	nice := SupervisorNice
	if b.attached > 0 {
		nice = 0
	}
	if b.group != nil && nice != b.nice {
		b.nice = nice
		b.group.Set(nice)
	}
}
