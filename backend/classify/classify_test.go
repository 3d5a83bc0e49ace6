package classify

import (
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

func TestSimpleLifecycle(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	c := NewSimple(500*time.Millisecond, t0)

	type want struct {
		st    session.State
		since time.Time
	}
	check := func(ms int, w want) {
		t.Helper()
		st, since := c.State(at(ms))
		if st != w.st || !since.Equal(w.since) {
			t.Errorf("at %dms: got %v since %v, want %v since %v", ms, st, since.Sub(t0), w.st, w.since.Sub(t0))
		}
	}

	check(0, want{session.Idle, at(0)})
	check(10_000, want{session.Idle, at(0)}) // quiet since start: Idle since start

	c.Output(at(100), 10)
	check(100, want{session.Active, at(100)})
	c.Output(at(400), 10) // within threshold: same burst
	check(599, want{session.Active, at(100)})
	check(899, want{session.Active, at(100)})
	check(900, want{session.Idle, at(900)}) // 500ms after the last output
	check(5000, want{session.Idle, at(900)})

	c.Output(at(6000), 0) // empty reads are not output
	check(6000, want{session.Idle, at(900)})

	c.Output(at(7000), 1) // a new burst
	check(7000, want{session.Active, at(7000)})

	c.Exit(at(7100))
	check(7100, want{session.Dead, at(7100)})
	c.Output(at(7200), 5) // output drained after exit does not revive
	c.Exit(at(9000))      // nor does a second Exit move the time
	check(9000, want{session.Dead, at(7100)})
}

func TestSimpleDefaultThreshold(t *testing.T) {
	t0 := time.Unix(0, 0)
	c := NewSimple(0, t0)
	c.Output(t0, 1)
	if st, _ := c.State(t0.Add(DefaultIdleThreshold - time.Nanosecond)); st != session.Active {
		t.Fatalf("before default threshold: %v", st)
	}
	if st, _ := c.State(t0.Add(DefaultIdleThreshold)); st != session.Idle {
		t.Fatalf("at default threshold: %v", st)
	}
}

func TestNew(t *testing.T) {
	for _, name := range []string{"", "simple"} {
		c, err := New(name, 0, time.Now())
		if err != nil || c.Name() != "simple" {
			t.Errorf("New(%q) = %v, %v", name, c, err)
		}
	}
	for _, name := range []string{"claude", "codex", "aider"} {
		c, err := New(name, 0, time.Now())
		if err != nil || c.Name() != name {
			t.Errorf("New(%q) = %v, %v", name, c, err)
		}
	}
	for _, name := range []string{"bogus", "Claude"} {
		if _, err := New(name, 0, time.Now()); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("New(%q): err = %v, want an error naming it", name, err)
		}
	}
}

func TestSimpleIgnoresScreen(t *testing.T) {
	t0 := time.Unix(0, 0)
	c := NewSimple(time.Second, t0)
	c.Screen(t0, Screen{Lines: []string{"Do you want to proceed?", "❯ 1. Yes"}, Title: "⠂ x"})
	if st, since := c.State(t0.Add(time.Hour)); st != session.Idle || !since.Equal(t0) {
		t.Errorf("after a screen: %v since %v", st, since)
	}
	if c.NeedsInput(t0.Add(time.Hour)) {
		t.Error("simple NeedsInput = true")
	}
}
