package supervisor

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// A flood starts when a window holds floodBytes of output and ends at the
// first window with less; output below the rate never counts as one.
func TestFloodMeter(t *testing.T) {
	var calls []bool
	m := &floodMeter{fn: func(on bool) { calls = append(calls, on) }}
	defer m.stop()
	t0 := time.Now()
	at := func(d time.Duration) time.Time { return t0.Add(d) }

	// An agent streaming: 8 KiB every 50 ms (160 KiB/s) for 5 s.
	for i := range 100 {
		m.output(at(time.Duration(i)*50*time.Millisecond), 8<<10)
	}
	if len(calls) != 0 {
		t.Fatalf("160 KiB/s counted as a flood: %v", calls)
	}
	// A flood: 64 KiB every 10 ms.
	base := 6 * time.Second
	for i := range 20 {
		m.output(at(base+time.Duration(i)*10*time.Millisecond), 64<<10)
	}
	if !slices.Equal(calls, []bool{true}) {
		t.Fatalf("after 1.25 MiB in 0.2 s: %v", calls)
	}
	// It goes on through the next window...
	for i := 20; i < 100; i++ {
		m.output(at(base+time.Duration(i)*10*time.Millisecond), 64<<10)
	}
	m.check(at(base + 1200*time.Millisecond))
	if !slices.Equal(calls, []bool{true}) {
		t.Fatalf("a flood that goes on ended: %v", calls)
	}
	// ...and ends with a quiet window.
	m.output(at(base+1500*time.Millisecond), 100)
	m.check(at(base + 2200*time.Millisecond))
	if !slices.Equal(calls, []bool{true, false}) {
		t.Fatalf("after a quiet second: %v", calls)
	}
	m.check(at(base + 3200*time.Millisecond))
	if len(calls) != 2 {
		t.Fatalf("a check after the end: %v", calls)
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
