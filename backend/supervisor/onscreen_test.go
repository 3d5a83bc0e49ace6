package supervisor

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// OnScreen is called after the emulator applied the output: whoever reads
// the screen from the hook sees the bytes that caused it, the title the
// program set and a Seq at least as new as the one reported. The last call
// reports the screen's final Seq, so a reader that waits for the hook
// never misses the last chunk.
func TestOnScreenAfterApply(t *testing.T) {
	var (
		sp    atomic.Pointer[Session]
		mu    sync.Mutex
		calls int
		stale []string // violations seen inside the hook
		last  uint64
		sawHi bool
		trace []string
	)
	// The second write waits on a gate the test opens once the hook has
	// seen the first: two writes the feeder cannot coalesce, however slow
	// the machine.
	g, g2 := newGate(t), newGate(t)
	cfg := Config{
		Argv: []string{"sh", "-c", g.Wait() + `; printf '\033]0;T1\007hello'; ` + g2.Wait() + `; printf ' world'; exec sleep 30`},
		OnScreen: func(seq uint64) {
			s := sp.Load()
			if s == nil {
				return // before Start returned: the gate keeps output back until then
			}
			snap := s.Screen()
			mu.Lock()
			defer mu.Unlock()
			calls++
			trace = append(trace, fmt.Sprintf("call %d: seq %d, snap seq %d %q", calls, seq, snap.Seq, strings.TrimSpace(snap.Text())))
			if seq <= last {
				stale = append(stale, "seq did not grow")
			}
			last = seq
			if snap.Seq < seq {
				stale = append(stale, "screen older than reported seq")
			}
			if strings.Contains(snap.Text(), "hello") {
				sawHi = true
				if s.Title() != "T1" {
					stale = append(stale, "title "+s.Title()+" not yet applied")
				}
			}
		},
	}
	s := startSession(t, cfg)
	sp.Store(s)
	g.Open(t)
	waitFor(t, "hook saw hello", 10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return sawHi
	})
	g2.Open(t)
	waitFor(t, "hook saw hello world", 10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		snap := s.Screen() // one snapshot: two could straddle the second write
		return sawHi && last == snap.Seq && strings.Contains(snap.Text(), "hello world")
	})
	mu.Lock()
	defer mu.Unlock()
	if len(stale) > 0 {
		t.Fatalf("hook saw a stale screen: %v", stale)
	}
	if calls < 2 {
		t.Fatalf("%d hook calls for two separated writes:\n%s\nnow seq %d %q", calls, strings.Join(trace, "\n"), s.Screen().Seq, strings.TrimSpace(s.Screen().Text()))
	}
	if s.Title() != "T1" {
		t.Fatalf("Title() = %q", s.Title())
	}
}

// An idle session calls no hook: OnScreen only follows screen changes.
func TestOnScreenQuietWhenIdle(t *testing.T) {
	var n atomic.Int32
	s := startSession(t, Config{Argv: []string{"sh", "-c", "echo ready; exec sleep 30"},
		OnScreen: func(uint64) { n.Add(1) }})
	waitFor(t, "ready", 10*time.Second, func() bool { return strings.Contains(s.Screen().Text(), "ready") })
	time.Sleep(100 * time.Millisecond)
	before := n.Load()
	if before == 0 {
		t.Fatal("no hook call for the output")
	}
	time.Sleep(300 * time.Millisecond)
	if after := n.Load(); after != before {
		t.Fatalf("hook called %d times while idle", after-before)
	}
}
