package main

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// gcSleeper puts a quiet supervisor's garbage collector to sleep, so that
// an idle session wakes for nothing.
//
// The Go runtime collects every two minutes in a process that has not
// collected otherwise (its forcegcperiod), and each such cycle is a burst
// of wake-ups (the world stopped and started, mark workers, the monitor
// thread napping after it). With twenty idle supervisors these cycles were
// most of their wake-ups: side by side, ten supervisors under the default
// made 1.7 context switches/s, ten with GOGC=off 0.3/s (the rest is the
// runtime monitor's one check a minute). The periodic cycle cannot be
// turned off alone; turning the percentage-based collector off turns it
// off with it.
//
// So sleep collects once, returns free memory to the kernel, and turns
// the collector's percentage off, with a memory limit a little above what
// the process then holds: whatever the supervisor allocates while asleep
// (a client connecting, a status request) is collected once it reaches
// the headroom, so it stays bounded. wake, called on activity, restores
// the settings sleep found (GOGC, GOMEMLIMIT as the user set them).
type gcSleeper struct {
	mu      sync.Mutex
	asleep  bool
	percent int   // GOGC before sleep
	limit   int64 // GOMEMLIMIT before sleep
}

// gcSleepHeadroom is what an asleep supervisor may allocate before it
// collects: more than a client's connection and screen costs, small
// beside a session's few MiB.
const gcSleepHeadroom = 2 << 20

func (g *gcSleeper) sleep() {
	g.mu.Lock()
	defer g.mu.Unlock()
	debug.FreeOSMemory()
	if g.asleep {
		return
	}
	limit := debug.SetMemoryLimit(-1)
	if limit != math.MaxInt64 {
		// A limit the user set stays the collector's only bound.
		return
	}
	g.limit = limit
	debug.SetMemoryLimit(int64(runtimeTotal()) + gcSleepHeadroom)
	g.percent = debug.SetGCPercent(-1)
	g.asleep = true
}

// wake is cheap when awake; it is called on every screen update.
func (g *gcSleeper) wake() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.asleep {
		return
	}
	debug.SetGCPercent(g.percent)
	debug.SetMemoryLimit(g.limit)
	g.asleep = false
}

// runtimeTotal is all memory the Go runtime has mapped and not released:
// what a memory limit is compared with.
func runtimeTotal() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() - s[1].Value.Uint64()
}
