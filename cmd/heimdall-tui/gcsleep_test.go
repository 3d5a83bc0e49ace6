package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcSettings reads the collector's percentage and memory limit.
func gcSettings() (percent int, limit int64) {
	percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

func numGC() uint32 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.NumGC
}

// waitSettings waits for the collector's settings to be want.
func waitSettings(t *testing.T, what string, want func(p int, l int64) bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if want(gcSettings()) {
			return
		}
	}
	p, l := gcSettings()
	t.Fatalf("%s: GOGC %d, limit %d", what, p, l)
}

// Quiet, it sleeps: the percentage off and a limit just above what is
// held. Light work leaves it asleep; garbage is still collected at the
// limit; work that allocates gcWakeBytes wakes it with the settings it
// found, and it sleeps again once quiet.
func TestIdleGCSleepsAndWakes(t *testing.T) {
	p0, l0 := gcSettings()
	if l0 != math.MaxInt64 {
		t.Skipf("GOMEMLIMIT is set (%d): the collector is left alone", l0)
	}
	g := newIdleGC(time.Millisecond, nil)
	defer g.stop()
	asleep := func(p int, l int64) bool { return p == -1 && l != math.MaxInt64 }
	waitSettings(t, "quiet", asleep)
	if _, l := gcSettings(); l > int64(runtimeHeld())+2*gcSleepHeadroom {
		t.Errorf("asleep: limit %d far above the %d held", l, runtimeHeld())
	}

	g.activity() // nothing allocated: stays asleep
	if p, l := gcSettings(); !asleep(p, l) {
		t.Fatalf("light work woke it: GOGC %d, limit %d", p, l)
	}

	// Garbage past the headroom is collected while asleep (here with
	// no activity call at all).
	n := numGC()
	var keep []byte
	for range 4 * gcSleepHeadroom / (64 << 10) {
		keep = make([]byte, 64<<10)
	}
	_ = keep
	if numGC() == n {
		t.Errorf("asleep: %d MiB of garbage made and never collected", 4*gcSleepHeadroom>>20)
	}

	g.activity() // more than gcWakeBytes allocated since it slept
	if p, l := gcSettings(); p != p0 || l != l0 {
		t.Fatalf("awake: GOGC %d, limit %d; want %d, %d", p, l, p0, l0)
	}
	waitSettings(t, "quiet again", asleep)
	g.stop()
	if p, l := gcSettings(); p != p0 || l != l0 {
		t.Fatalf("stopped: GOGC %d, limit %d; want %d, %d", p, l, p0, l0)
	}
}

// A memory limit the user set is left as the collector's bound.
func TestIdleGCKeepsUserLimit(t *testing.T) {
	old := debug.SetMemoryLimit(512 << 20)
	defer debug.SetMemoryLimit(old)
	p0, _ := gcSettings()
	n := numGC()
	g := newIdleGC(time.Millisecond, nil)
	defer g.stop()
	for deadline := time.Now().Add(10 * time.Second); numGC() == n && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if numGC() == n {
		t.Fatal("quiet: free memory not returned (no collection)")
	}
	if p, l := gcSettings(); p != p0 || l != 512<<20 {
		t.Fatalf("with a user limit: GOGC %d, limit %d; want %d, %d", p, l, p0, 512<<20)
	}
}

// Falling asleep calls the trimmed hook once, after the free heap went
// back, and not again while asleep.
func TestIdleGCCallsTrimmedOnSleep(t *testing.T) {
	if _, l := gcSettings(); l != math.MaxInt64 {
		t.Skipf("GOMEMLIMIT is set (%d): it does not stay asleep", l)
	}
	trimmed := make(chan struct{}, 4)
	g := newIdleGC(time.Millisecond, func() { trimmed <- struct{}{} })
	defer g.stop()
	select {
	case <-trimmed:
	case <-time.After(10 * time.Second):
		t.Fatal("not trimmed after a quiet spell")
	}
	g.activity() // nothing allocated: stays asleep, no new quiet spell
	time.Sleep(20 * time.Millisecond)
	if n := len(trimmed); n != 0 {
		t.Fatalf("trimmed %d more times while asleep", n)
	}
}

// The trimming (a supervisor's dropCodePages) runs once the collector is
// set asleep: what runs after it maps back pages it dropped.
func TestIdleGCTrimsLast(t *testing.T) {
	p0, l0 := gcSettings()
	if l0 != math.MaxInt64 {
		t.Skipf("GOMEMLIMIT is set (%d): the collector is left alone", l0)
	}
	type seen struct {
		p int
		l int64
	}
	got := make(chan seen, 1)
	g := newIdleGC(time.Millisecond, func() {
		p, l := gcSettings()
		got <- seen{p, l}
	})
	defer g.stop()
	select {
	case s := <-got:
		if s.p != -1 || s.l == math.MaxInt64 {
			t.Errorf("trimmed with the collector awake: GOGC %d, limit %d (before: %d, %d)", s.p, s.l, p0, l0)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("never trimmed")
	}
}

// runtimeHeld is held of the runtime's statistics now.
func runtimeHeld() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return held(&m)
}

// A flood sets gcFloodPercent, awake or asleep, keeps the collector from
// sleeping while it lasts, and gives back the percentage it found.
func TestIdleGCFlood(t *testing.T) {
	if userGOGC {
		t.Skip("GOGC is set: flood leaves it alone")
	}
	p0, l0 := gcSettings()
	if l0 != math.MaxInt64 {
		t.Skipf("GOMEMLIMIT is set (%d)", l0)
	}
	g := newIdleGC(time.Millisecond, nil)
	defer g.stop()
	waitSettings(t, "quiet", func(p int, l int64) bool { return p == -1 })
	g.flood(true)
	if p, l := gcSettings(); p != gcFloodPercent || l != l0 {
		t.Fatalf("flooding: GOGC %d, limit %d; want %d, %d", p, l, gcFloodPercent, l0)
	}
	g.sleep() // its quiet period over, as the timer would call it
	if p, _ := gcSettings(); p != gcFloodPercent {
		t.Fatalf("fell asleep in a flood: GOGC %d", p)
	}
	g.flood(false)
	if p, _ := gcSettings(); p != p0 && p != -1 {
		t.Fatalf("after the flood: GOGC %d, want %d (or asleep again)", p, p0)
	}
	waitSettings(t, "quiet after the flood", func(p int, l int64) bool { return p == -1 })
	g.stop()
	if p, l := gcSettings(); p != p0 || l != l0 {
		t.Fatalf("stopped: GOGC %d, limit %d; want %d, %d", p, l, p0, l0)
	}
}

// Stopped in a flood (the supervisor's program exited while it flooded),
// it gives back the percentage the flood found.
func TestIdleGCStopInFlood(t *testing.T) {
	if userGOGC {
		t.Skip("GOGC is set: flood leaves it alone")
	}
	p0, l0 := gcSettings()
	g := newIdleGC(time.Hour, nil)
	g.flood(true)
	if p, _ := gcSettings(); p != gcFloodPercent {
		t.Fatalf("flooding: GOGC %d, want %d", p, gcFloodPercent)
	}
	g.stop()
	if p, l := gcSettings(); p != p0 || l != l0 {
		t.Fatalf("stopped in a flood: GOGC %d, limit %d; want %d, %d", p, l, p0, l0)
	}
}
