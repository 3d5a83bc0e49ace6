package supervisor

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// fakeClock is a Clock the test moves by hand: AfterFunc's calls run
// when Advance passes their time, never before.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	c    *fakeClock
	at   time.Time
	f    func()
	done bool
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.done
	t.done = true
	return was
}

// Advance moves the clock to at and runs the calls due by then.
func (c *fakeClock) Advance(at time.Time) {
	c.mu.Lock()
	c.now = at
	var due []*fakeTimer
	for _, t := range c.timers {
		if !t.done && !t.at.After(at) {
			t.done = true
			due = append(due, t)
		}
	}
	c.mu.Unlock()
	for _, t := range due {
		t.f()
	}
}

// pending is how many calls wait.
func (c *fakeClock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if !t.done {
			n++
		}
	}
	return n
}

// Issue 35's done-when, the supervisor's part: a StopFailure rate_limit
// whose details name the reset makes the session Limited until then
// (clock injected); a continue scheduled for before the reset is typed
// only at the reset, not a minute before; parking drops it; and the
// transcript the hooks name gives the session's tokens.
func TestLimitAndScheduledContinue(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 12, 7, 14, 0, 0, 0, time.UTC)}
	typed := filepath.Join(t.TempDir(), "typed")
	transcript := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(transcript, []byte(`{"type":"assistant","timestamp":"2026-12-07T13:59:00Z","message":{"id":"m1","model":"claude-opus-4-6","usage":{"input_tokens":1200,"output_tokens":340,"cache_creation_input_tokens":5000,"cache_read_input_tokens":70000}}}`+"\n"), 0o600)
	script := writeScript(t, `printf 'You'"'"'ve hit your limit · resets 3pm (UTC)\n> '; while read -r l; do printf '%s\n' "$l" >> "`+typed+`"; printf 'ok\n> '; done`)
	s := startServed(t, Config{Argv: []string{"sh", script}, Clock: clock, IdleThreshold: 200 * time.Millisecond})
	w := dial(t, s.sock)
	if err := w.Send(frame.WatchState, nil); err != nil {
		t.Fatal(err)
	}
	nextState(t, w, "Idle at its prompt", func(si frame.StateInfo) bool { return si.State == "Idle" })
	sendHook(t, s.sock, `{"hook_event_name":"StopFailure","session_id":"c","transcript_path":"`+transcript+`","error":"rate_limit","error_details":"You've hit your limit · resets 3pm (UTC)"}`)
	reset := time.Date(2026, 12, 7, 15, 0, 0, 0, time.UTC)
	si := nextState(t, w, "Limited with its tokens", func(si frame.StateInfo) bool { return si.Limited && len(si.Usage) == 1 })
	if si.LimitReset != reset.UnixMilli() || si.Usage[0] != (frame.UsageRow{Day: "2026-12-07", Model: "claude-opus-4-6",
		Input: 1200, Output: 340, CacheWrite: 5000, CacheRead: 70000}) || si.ContextTokens != 76540 || si.ContextModel != "claude-opus-4-6" {
		t.Fatalf("STATE %+v", si)
	}
	c := dial(t, s.sock)
	if res, err := c.Limit(frame.LimitRequest{ContinueAt: reset.Add(-30 * time.Minute).UnixMilli(), Text: "continue"}); err != nil || !res.OK {
		t.Fatalf("LIMIT: %+v %v", res, err)
	}
	si = nextState(t, w, "the continue scheduled at the reset", func(si frame.StateInfo) bool { return si.ContinueAt != 0 })
	if si.ContinueAt != reset.UnixMilli() {
		t.Fatalf("continue at %v, want the reset %v", time.UnixMilli(si.ContinueAt), reset)
	}
	// The continue is typed only at the prompt: wait until the program
	// has drawn it and stood still (the simple classifier's Idle).
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.sess.Screen().Text(), "hit your limit") || s.sess.Status().State != session.Idle {
		if time.Now().After(deadline) {
			t.Fatalf("never idle at its prompt: %v\n%s", s.sess.Status().State, s.sess.Screen().Text())
		}
		time.Sleep(10 * time.Millisecond)
	}
	clock.Advance(reset.Add(-time.Minute))
	if b, _ := os.ReadFile(typed); len(b) != 0 || !s.sess.View().Limit.On {
		t.Fatalf("typed before the reset: %q", b)
	}
	clock.Advance(reset)
	nextState(t, w, "no longer limited", func(si frame.StateInfo) bool { return !si.Limited && si.ContinueAt == 0 })
	waitFile(t, typed, "continue\n")

	// Parked: a scheduled continue is dropped, and none is taken.
	sendHook(t, s.sock, `{"hook_event_name":"StopFailure","session_id":"c","error":"rate_limit","error_details":"You've hit your limit · resets 6pm (UTC)"}`)
	nextState(t, w, "limited again", func(si frame.StateInfo) bool { return si.Limited })
	if res, _ := c.Limit(frame.LimitRequest{ContinueAt: clock.Now().UnixMilli(), Text: "go on"}); !res.OK {
		t.Fatalf("LIMIT: %+v", res)
	}
	park := true
	if res, _ := c.Limit(frame.LimitRequest{Park: &park}); !res.OK {
		t.Fatalf("park: %+v", res)
	}
	nextState(t, w, "parked, nothing scheduled", func(si frame.StateInfo) bool { return si.Parked && si.ContinueAt == 0 })
	if res, _ := c.Limit(frame.LimitRequest{ContinueAt: clock.Now().UnixMilli(), Text: "go on"}); res.OK || !strings.Contains(res.Error, "parked") {
		t.Fatalf("a continue taken while parked: %+v", res)
	}
	// Its reset passes: no longer Limited (still parked); nothing typed.
	clock.Advance(time.Date(2026, 12, 7, 19, 0, 0, 0, time.UTC))
	nextState(t, w, "the limit over at its reset", func(si frame.StateInfo) bool { return !si.Limited && si.Parked })
	if b, _ := os.ReadFile(typed); string(b) != "continue\n" || clock.pending() != 0 {
		t.Fatalf("typed while parked: %q (%d pending)", b, clock.pending())
	}
	// A resumed conversation: what Claude says of its cost stands until
	// the first prompt; then the transcript's context does.
	sendHook(t, s.sock, `{"hook_event_name":"SessionStart","source":"resume","session_id":"c","context_tokens":149773,"prompt_cache_likely_expired":true,"estimated_cache_write_usd":1.1982}`)
	si = nextState(t, w, "the resume's cost", func(si frame.StateInfo) bool { return si.ResumeReported })
	if si.ContextTokens != 149773 || !si.CacheExpired || si.CacheWriteUSD != 1.1982 || si.ContextModel != "claude-opus-4-6" {
		t.Fatalf("resume STATE %+v", si)
	}
	sendHook(t, s.sock, `{"hook_event_name":"UserPromptSubmit","session_id":"c","transcript_path":"`+transcript+`"}`)
	si = nextState(t, w, "the first prompt", func(si frame.StateInfo) bool { return !si.ResumeReported })
	if si.ContextTokens != 149773 {
		t.Fatalf("context after the prompt: %+v", si)
	}
	// Refused: nothing to continue after, or bad requests.
	if res, _ := c.Limit(frame.LimitRequest{ContinueAt: 1, Text: "a\x1bb"}); res.OK {
		t.Fatal("an escape taken")
	}
}

func waitFile(t *testing.T, path, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if string(b) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s holds %q, want %q", path, b, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
