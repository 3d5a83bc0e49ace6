package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// Issue 35's done-when, as a user sees it: a fake Claude reports its
// tokens in its transcript, then a StopFailure rate_limit naming its
// reset. The ledger page shows the tokens; the session reads Limited with
// the agent's words; W schedules its continue at the reset (the
// supervisor keeps it: status --json says so); P parks it, dropping the
// continue. (That the continue is typed at the reset and not before is
// TestLimitAndScheduledContinue's, with the supervisor's clock injected.)
func TestDashboardLimited(t *testing.T) {
	t.Parallel()
	d := newDash(t)
	transcript := filepath.Join(t.TempDir(), "c1.jsonl")
	if r := hmIn(t, d.dir, "run", "--detach", "--id", "c1", "--agent", "claude", "--classifier", "claude", "--",
		"env", "FAKE_CLAUDE_TRANSCRIPT="+transcript, "FAKE_CLAUDE_STEP=50", fakeClaudePath); r.code != 0 {
		t.Fatalf("run: %s", r)
	}
	d.open()
	d.waitFor("Welcome to Claude Code (fake)")
	d.sendTo("c1", "hello")
	d.waitFor("echo: hello")
	d.sendKeys("L")
	// One turn: 1200 in, 340 out, 5000 cache written, 70000 read, counted
	// once though Claude writes it on two lines.
	screen := d.waitFor("Agent tokens")
	d.waitScreen("c1's tokens", func(s string) bool {
		screen = s
		return strings.Contains(s, "76,540") && strings.Contains(s, "70,000")
	})
	if strings.Contains(screen, "153,080") {
		t.Fatalf("a message counted twice:\n%s", screen)
	}
	d.sendKeys("Escape")
	d.waitFor("NAME")
	d.sendTo("c1", "ratelimit")
	d.waitScreen("c1 Limited", func(s string) bool { return strings.Contains(s, "c1         Limited") })
	d.sendKeys("W")
	d.waitFor("c1 continues at 15:00:00")
	st := statusOf(t, d.dir, "c1")
	if !st.Limited || st.LimitReset == 0 || st.ContinueAt != st.LimitReset || len(st.Usage) != 1 || st.Usage[0].CacheRead != 70000 {
		t.Fatalf("status --json: %+v", st)
	}
	if at := time.UnixMilli(st.ContinueAt).Local(); at.Hour() != 15 || at.Minute() != 0 || !at.After(time.Now()) {
		t.Fatalf("continue at %v", at)
	}
	d.sendKeys("P")
	d.waitFor("parked c1")
	if st := statusOf(t, d.dir, "c1"); !st.Parked || st.ContinueAt != 0 {
		t.Fatalf("parked: %+v", st)
	}
	d.sendKeys("W")
	d.waitFor("it is parked: unpark it first")
	d.quitChoosing("l")
}

// statusOf is `status --json ID`'s agent state.
func statusOf(t *testing.T, dir, id string) frame.AgentState {
	t.Helper()
	r := hmIn(t, dir, "status", id, "--json")
	var st struct{ frame.AgentState }
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || r.code != 0 {
		t.Fatalf("status --json: %v %s", err, r)
	}
	return st.AgentState
}
