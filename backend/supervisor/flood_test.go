package supervisor

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeTimer stands in for the flood meter's window timer: it records how
// it is armed and never fires (the test calls check with made-up times).
type fakeTimer struct{ armed, stops int }

func (f *fakeTimer) Reset(time.Duration) bool { f.armed++; return true }
func (f *fakeTimer) Stop() bool               { f.stops++; return true }

// testMeter is a flood meter recording fn's calls, on a fakeTimer.
func testMeter() (m *floodMeter, calls *[]bool, timer *fakeTimer) {
	calls, timer = new([]bool), new(fakeTimer)
	m = &floodMeter{
		fn: func(on bool) { *calls = append(*calls, on) },
		afterFunc: func(time.Duration, func()) floodTimer {
			timer.armed++
			return timer
		},
	}
	return m, calls, timer
}

// A flood starts when a window holds floodBytes of output and ends at the
// first window with less; output below the rate never counts as one. The
// window's timer is armed only while a flood lasts.
func TestFloodMeter(t *testing.T) {
	m, c, timer := testMeter()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }

	// An agent streaming: 8 KiB every 50 ms (160 KiB/s) for 5 s.
	for i := range 100 {
		m.output(at(time.Duration(i)*50*time.Millisecond), 8<<10)
	}
	if len(*c) != 0 || timer.armed != 0 {
		t.Fatalf("160 KiB/s counted as a flood: %v (timer armed %d times)", *c, timer.armed)
	}
	// A flood: 64 KiB every 10 ms.
	base := 6 * time.Second
	for i := range 20 {
		m.output(at(base+time.Duration(i)*10*time.Millisecond), 64<<10)
	}
	if !slices.Equal(*c, []bool{true}) || timer.armed != 1 {
		t.Fatalf("after 1.25 MiB in 0.2 s: %v (timer armed %d times)", *c, timer.armed)
	}
	// It goes on through the next window...
	for i := 20; i < 100; i++ {
		m.output(at(base+time.Duration(i)*10*time.Millisecond), 64<<10)
	}
	m.check(at(base + 1200*time.Millisecond))
	if !slices.Equal(*c, []bool{true}) || timer.armed != 2 {
		t.Fatalf("a flood that goes on ended: %v (timer armed %d times, want 2)", *c, timer.armed)
	}
	// ...and ends with a quiet window, the timer left unarmed.
	m.output(at(base+1500*time.Millisecond), 100)
	m.check(at(base + 2200*time.Millisecond))
	if !slices.Equal(*c, []bool{true, false}) || timer.armed != 2 {
		t.Fatalf("after a quiet second: %v (timer armed %d times, want 2)", *c, timer.armed)
	}
	m.check(at(base + 3200*time.Millisecond))
	if len(*c) != 2 {
		t.Fatalf("a check after the end: %v", *c)
	}
}

// A flood still on when the program exits ends with it (stop calls
// fn(false)), and nothing is called after stop.
func TestFloodMeterStopEndsFlood(t *testing.T) {
	m, c, timer := testMeter()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m.output(t0, floodBytes)
	if !slices.Equal(*c, []bool{true}) {
		t.Fatalf("after floodBytes at once: %v", *c)
	}
	m.stop()
	if !slices.Equal(*c, []bool{true, false}) || timer.stops != 1 {
		t.Fatalf("stopped in a flood: calls %v, timer stopped %d times; want [true false], 1", *c, timer.stops)
	}
	m.output(t0.Add(2*time.Second), 2*floodBytes) // the reader drains after the exit
	m.check(t0.Add(3 * time.Second))
	m.stop()
	if len(*c) != 2 {
		t.Fatalf("calls after stop: %v", *c)
	}

	// Stopped outside a flood, it calls nothing.
	m, c, _ = testMeter()
	m.output(t0, 100)
	m.stop()
	if len(*c) != 0 {
		t.Fatalf("stopped outside a flood: %v", *c)
	}
}

// A program that exits while it floods its terminal: OnFlood(false) comes
// before OnExiting, and OnExiting runs while the program's pid still names
// it (exited, not yet reaped); nothing is called after.
func TestFloodEndsBeforeExiting(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	add := func(s string) {
		mu.Lock()
		calls = append(calls, s)
		mu.Unlock()
	}
	pids := make(chan int, 1)
	// 4 MB at once, and exit: a flood a pty delivers in well under the
	// meter's one-second window.
	s := startSession(t, Config{
		Argv:    []string{"sh", "-c", "read x; head -c 4000000 /dev/zero; exit 0"},
		OnFlood: func(on bool) { add(fmt.Sprint("flood ", on)) },
		OnExiting: func() {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", <-pids))
			if err != nil {
				add("exiting: " + err.Error())
				return
			}
			// The state is the field after "(comm) ".
			add("exiting, state " + string(b[strings.LastIndexByte(string(b), ')')+2]))
		},
	})
	pids <- s.PID()
	s.Write([]byte("go\r"))
	waitDone(t, s, 20*time.Second)
	mu.Lock()
	defer mu.Unlock()
	want := []string{"flood true", "flood false", "exiting, state Z"}
	if !slices.Equal(calls, want) {
		t.Fatalf("calls %q, want %q", calls, want)
	}
}

// OnFlood runs with no lock of the session's held: while it waits, the
// session's state can be read (STATUS, SCREEN and Size take the lock).
func TestOnFloodUnlocked(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	s := startSession(t, Config{
		Argv: []string{"sh", "-c", "head -c 4000000 /dev/zero; exec sleep 30"},
		OnFlood: func(on bool) {
			if on {
				once.Do(func() {
					close(entered)
					<-release
				})
			}
		},
	})
	defer close(release)
	select {
	case <-entered:
	case <-time.After(20 * time.Second):
		t.Fatal("no flood")
	}
	sized := make(chan struct{})
	go func() {
		s.Size()
		s.Status()
		close(sized)
	}()
	select {
	case <-sized:
	case <-time.After(10 * time.Second):
		t.Fatal("Size and Status wait for OnFlood to return: it runs under the session's lock")
	}
}
