package supervisor

import (
	"sync"
	"time"
)

// A program floods its terminal when it writes more than floodBytes within
// floodWindow: faster than anybody reads (an agent streaming a reply writes
// a few KB a second, a full-screen UI redrawing tens). It is no longer
// flooding after a window in which it wrote less.
const (
	floodBytes  = 512 << 10
	floodWindow = time.Second
)

// floodMeter tells Config.OnFlood when the program starts and stops
// flooding its terminal (see floodBytes). It counts the output the reader
// publishes; while a flood lasts a timer checks each floodWindow whether
// it goes on, and none is armed otherwise. Its calls of fn are made under
// its own lock, in order, and under no lock of the session's: output is
// called after publish unlocks the session.
type floodMeter struct {
	fn func(bool) // Config.OnFlood: called under mu, in order
	// afterFunc arms the window's timer: time.AfterFunc, or a test's
	// (which then calls check itself, with made-up times).
	afterFunc func(time.Duration, func()) floodTimer

	mu      sync.Mutex
	start   time.Time // the window's start
	bytes   int       // output in the window
	on      bool
	stopped bool // stop was called: fn is not called again
	timer   floodTimer
}

// floodTimer is what the meter uses of a *time.Timer.
type floodTimer interface {
	Reset(time.Duration) bool
	Stop() bool
}

func newFloodMeter(fn func(bool)) *floodMeter {
	return &floodMeter{fn: fn, afterFunc: func(d time.Duration, f func()) floodTimer {
		return time.AfterFunc(d, f)
	}}
}

// output counts n bytes written by the program at now.
func (m *floodMeter) output(now time.Time, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped {
		return
	}
	if now.Sub(m.start) >= floodWindow && !m.on {
		m.start, m.bytes = now, 0
	}
	m.bytes += n
	if m.on || m.bytes < floodBytes {
		return
	}
	m.on = true
	m.start, m.bytes = now, 0
	if m.timer == nil {
		m.timer = m.afterFunc(floodWindow, func() { m.check(time.Now()) })
	} else {
		m.timer.Reset(floodWindow)
	}
	m.fn(true)
}

// check ends a flood window: the flood goes on if the window had
// floodBytes, and a new window starts; else it is over.
func (m *floodMeter) check(now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.on {
		return
	}
	if m.bytes*int(floodWindow) >= floodBytes*int(max(now.Sub(m.start), 1)) {
		m.start, m.bytes = now, 0
		m.timer.Reset(floodWindow)
		return
	}
	m.on = false
	m.start, m.bytes = now, 0
	m.fn(false)
}

// stop ends the meter (the program has exited): a flood still on ends
// (fn(false)), so that what followed it (a lower priority, the collector's
// percentage) goes back, and fn is not called again.
func (m *floodMeter) stop() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped {
		return
	}
	m.stopped = true
	if m.timer != nil {
		m.timer.Stop()
	}
	if m.on {
		m.on = false
		m.fn(false)
	}
}
