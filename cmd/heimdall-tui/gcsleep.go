package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// idleGC keeps a process's garbage collector asleep while the process is
// quiet: a supervisor whose screen stands still, a dashboard nobody types
// into. It is how an idle session, and an idle dashboard, wake for nothing
// and stay small with the Go runtime's defaults otherwise.
//
// Quiet for its period (no activity call), it collects, returns free
// memory to the kernel, and turns the collector's percentage off, with a
// memory limit gcSleepHeadroom above what the process then holds. Two
// reasons:
//   - Size. The heap is not collected until it doubles past a 4 MiB floor,
//     so what one client's connection or a burst of output left behind
//     (~0.5 MiB) would stay resident for the session's life. Collecting
//     more eagerly instead (a lower GOGC) was measured to make idle
//     supervisors bigger: every cycle touches more of the collector's own
//     metadata (docs/ARCHITECTURE.md, "Small sessions").
//   - Wake-ups. The runtime forces a collection every two minutes in a
//     process that has not collected otherwise, and each is a burst of
//     context switches (the world stopped and started, mark workers, the
//     runtime's monitor thread napping in 20 µs steps after it). With 20
//     idle supervisors these were most of their wake-ups: side by side,
//     ten under the default made 1.7 switches/s, ten with GOGC=off 0.3/s.
//     The periodic cycle cannot be turned off alone; the percentage off
//     turns it off with it.
//
// While asleep, light work (a spinner frame, the dashboard's clock tick, a
// status request) leaves it asleep: what it allocates is collected when it
// reaches the limit. Work that allocates gcWakeBytes wakes it: the
// settings it found (GOGC and GOMEMLIMIT as the user set them) come back
// and it sleeps again once quiet. A memory limit the user set is left
// alone: then it only returns free memory once quiet.
type idleGC struct {
	quiet   time.Duration
	t       *time.Timer
	trimmed func() // called after each return of free memory (nil: none)

	mu       sync.Mutex
	asleep   bool
	percent  int    // GOGC before sleep
	limit    int64  // GOMEMLIMIT before sleep
	allocs   uint64 // heap bytes allocated in all, when it fell asleep
	flooding bool   // the flood's percentage is set (flood)
	before   int    // GOGC before the flood
}

const (
	// gcFloodPercent is the collector's percentage while the session's
	// program floods its terminal (see flood).
	gcFloodPercent = 400
	// gcSleepHeadroom is what an asleep process may hold beyond what it
	// held falling asleep before it collects.
	gcSleepHeadroom = 2 << 20
	// gcWakeBytes allocated while asleep wake the collector (less than
	// the headroom, so that a process at work is never collected by the
	// limit alone).
	gcWakeBytes = 1 << 20
)

// newIdleGC starts awake; it sleeps after quiet unless activity comes.
// trimmed, if not nil, gives back more each time it falls asleep, after
// the free heap (a supervisor: its mappings of the binary, dropCodePages).
func newIdleGC(quiet time.Duration, trimmed func()) *idleGC {
	g := &idleGC{quiet: quiet, trimmed: trimmed}
	g.t = time.AfterFunc(quiet, g.sleep)
	return g
}

// activity reports work; cheap enough for every screen update (at most
// one per 10 ms, supervisor.Config.OnScreen) and every dashboard message.
func (g *idleGC) activity() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.asleep {
		if heapAllocs()-g.allocs < gcWakeBytes {
			return
		}
		g.wake()
	}
	g.t.Reset(g.quiet)
}

// wake restores the settings sleep found; g.mu is held.
func (g *idleGC) wake() {
	debug.SetGCPercent(g.percent)
	debug.SetMemoryLimit(g.limit)
	g.asleep = false
}

// flood sets the collector's percentage to gcFloodPercent while the
// session's program floods its terminal (supervisor.Config.OnFlood) and
// back to what it was after. A flood's output is read in ~4 KiB chunks,
// each a new buffer (handed to the subscribers' queues and the emulator
// without a copy) that is garbage a moment later: at the default
// percentage a supervisor collected every 4 MiB of it, and the collector's
// work on the supervisor's one P delayed the pty reader, which then let
// the program block on a full pty. BenchmarkRunThroughput, side by side,
// 5 interleaved runs of 4 pairs each: run/raw median 0.871 at the default
// (GOGC=100) against 0.935 with GOGC=400. The price is a heap up to five
// times the live one while the flood lasts (a few MiB), given back once
// the session is quiet (sleep). A GOGC the user set is left alone.
func (g *idleGC) flood(on bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if on == g.flooding || userGOGC {
		return
	}
	if g.asleep {
		g.wake()
	}
	if on {
		g.before = debug.SetGCPercent(gcFloodPercent)
	} else {
		debug.SetGCPercent(g.before)
	}
	g.flooding = on
	g.t.Reset(g.quiet)
}

// userGOGC says the user set GOGC: flood leaves the percentage alone.
var userGOGC = os.Getenv("GOGC") != ""

func (g *idleGC) sleep() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.asleep {
		return
	}
	if g.flooding { // a flood without screen updates: not quiet
		g.t.Reset(g.quiet)
		return
	}
	debug.FreeOSMemory()
	// trimmed comes last: what runs after it (the collector's settings,
	// ReadMemStats) would map back pages of the binary it dropped.
	if g.trimmed != nil {
		defer g.trimmed()
	}
	limit := debug.SetMemoryLimit(-1)
	if limit != math.MaxInt64 {
		return // the user's limit stays the collector's bound
	}
	g.limit = limit
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	debug.SetMemoryLimit(int64(held(&m)) + gcSleepHeadroom)
	g.percent = debug.SetGCPercent(-1)
	g.allocs = m.TotalAlloc
	g.asleep = true
}

// stop ends it, with the collector's settings as it found them (a flood
// still on ends too).
func (g *idleGC) stop() {
	g.t.Stop()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.asleep {
		g.wake()
	}
	if g.flooding {
		debug.SetGCPercent(g.before)
		g.flooding = false
	}
}

// held is the memory a memory limit is compared with: all the Go runtime
// has mapped and not released.
//
// Read with runtime.ReadMemStats rather than runtime/metrics: that package
// builds a table of every metric in its init (~15 KB, ~100 objects, kept
// for the process's life, in every process of the binary) and the runtime
// another on its first Read; this package was its only importer. Its
// price, a stop of the world, is paid when the process falls asleep and
// on its screen updates while asleep (at most one per 10 ms), and with a
// supervisor's one P stopping the world stops only the caller.
func held(m *runtime.MemStats) uint64 { return m.Sys - m.HeapReleased }

// heapAllocs is the bytes allocated on the heap since the process started.
func heapAllocs() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}
