package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// gcSettings reads the collector's percentage and memory limit.
func gcSettings() (percent int, limit int64) {
	percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

// Asleep, the percentage is off and a limit bounds what is allocated;
// garbage past the headroom is still collected; wake restores both.
func TestGCSleeperSleepsAndWakes(t *testing.T) {
	p0, l0 := gcSettings()
	if l0 != math.MaxInt64 {
		t.Skipf("GOMEMLIMIT is set (%d): sleep leaves the collector alone", l0)
	}
	var g gcSleeper
	g.sleep()
	p, l := gcSettings()
	if p != -1 || l == math.MaxInt64 {
		t.Fatalf("asleep: GOGC %d, limit %d; want off and a limit", p, l)
	}
	if l > int64(runtimeTotal())+2*gcSleepHeadroom {
		t.Errorf("asleep: limit %d far above the %d held", l, runtimeTotal())
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	n := ms.NumGC
	var keep [][]byte
	for i := 0; i < 4*gcSleepHeadroom/(64<<10); i++ {
		keep = append(keep[:0], make([]byte, 64<<10)) // garbage but the last
	}
	runtime.ReadMemStats(&ms)
	if ms.NumGC == n {
		t.Errorf("asleep: %d MiB of garbage made and never collected", 4*gcSleepHeadroom>>20)
	}
	g.sleep() // asleep twice: still restores the settings found first
	g.wake()
	if p, l := gcSettings(); p != p0 || l != l0 {
		t.Fatalf("awake: GOGC %d, limit %d; want %d, %d", p, l, p0, l0)
	}
	g.wake() // awake: nothing to restore
	if p, l := gcSettings(); p != p0 || l != l0 {
		t.Fatalf("woken twice: GOGC %d, limit %d; want %d, %d", p, l, p0, l0)
	}
	_ = keep
}

// A memory limit the user set is left as the collector's bound.
func TestGCSleeperKeepsUserLimit(t *testing.T) {
	old := debug.SetMemoryLimit(512 << 20)
	defer debug.SetMemoryLimit(old)
	p0, _ := gcSettings()
	var g gcSleeper
	g.sleep()
	defer g.wake()
	if p, l := gcSettings(); p != p0 || l != 512<<20 {
		t.Fatalf("with a user limit: GOGC %d, limit %d; want %d, %d", p, l, p0, 512<<20)
	}
}
