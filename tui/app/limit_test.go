package app

import (
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/themes"
)

// limitedStub is the stub with claude-1 and claude-2 stopped by a usage
// limit that resets at 15:00 UTC, and shell-1 already scheduled then.
func limitedStub() *stub {
	b := newStub()
	reset := time.Date(2026, 12, 7, 15, 0, 0, 0, time.UTC)
	for _, id := range []string{"claude-1", "shell-1"} {
		b.set(id, func(in *session.Info) {
			in.State, in.Limited, in.LimitReset = session.Idle, true, reset
			in.Error = "rate_limit: You've hit your limit · resets 3pm (UTC)"
		})
	}
	b.set("shell-1", func(in *session.Info) { in.ContinueAt = reset })
	return b
}

// W on a limited session schedules its continue at the reset, a gap after
// a continue already scheduled then; P parks it, P again unparks; W on a
// session no limit stopped is refused. The list says Limited with the
// reset and what happens then.
func TestContinueAfterLimit(t *testing.T) {
	b := limitedStub()
	m := newModel(t, b, 120, 35, themes.Dark())
	m.opt.ResumeGap, m.opt.ContinueText = 90*time.Second, "go on"
	if got := plain(m); !strings.Contains(got, "claude-1   Limited") || !strings.Contains(got, "rate_limit: You've hit your limit") {
		t.Fatalf("the list:\n%s", got)
	}
	press(m, "W")
	wantCalls(t, b, `continue claude-1 15:01:30 "go on"`)
	b.set("claude-1", func(in *session.Info) { in.ContinueAt = time.Date(2026, 12, 7, 15, 1, 30, 0, time.UTC) })
	m.reload()
	if got := plain(m); !strings.Contains(got, "continues ") {
		t.Fatalf("the list does not say when it continues:\n%s", got)
	}
	press(m, "P")
	wantCalls(t, b, `continue claude-1 15:01:30 "go on"`, "park claude-1 true")
	b.set("claude-1", func(in *session.Info) { in.Parked = true })
	m.reload()
	press(m, "P")
	wantCalls(t, b, `continue claude-1 15:01:30 "go on"`, "park claude-1 true", "park claude-1 false")
	press(m, "j", "j", "W") // claude-2 needs input: no limit
	if !strings.Contains(m.status, "no usage limit stopped claude-2") {
		t.Fatalf("W on claude-2: status %q", m.status)
	}
}

// With a daily budget spent, W parks instead, and a reload parks the
// sessions with a continue scheduled (once a day).
func TestDailyBudgetParks(t *testing.T) {
	b := limitedStub()
	today := t0.Format(time.DateOnly)
	b.set("claude-2", func(in *session.Info) {
		in.Usage = session.Usage{{Day: today, Model: "m", Tokens: session.Tokens{Input: 600, Output: 500}}}
	})
	m := newModel(t, b, 120, 35, themes.Dark())
	m.opt.DailyBudget = 1000
	update(m, eventsMsg{events: []session.Event{{Kind: session.Changed, ID: "claude-2"}}})
	drain(m)
	wantCalls(t, b, "park shell-1 true")
	if !strings.Contains(m.status, "today's token budget is spent (1.1k of 1.0k): parked shell-1") {
		t.Fatalf("status %q", m.status)
	}
	update(m, eventsMsg{events: []session.Event{{Kind: session.Changed, ID: "claude-2"}}})
	drain(m)
	wantCalls(t, b, "park shell-1 true")
	press(m, "W")
	wantCalls(t, b, "park shell-1 true", "park claude-1 true")
}

func TestStaggered(t *testing.T) {
	base := time.Date(2026, 1, 1, 15, 0, 0, 0, time.UTC)
	gap := time.Minute
	for _, c := range []struct {
		taken []time.Duration
		want  time.Duration
	}{
		{nil, 0},
		{[]time.Duration{0}, time.Minute},
		{[]time.Duration{0, time.Minute}, 2 * time.Minute},
		{[]time.Duration{3 * time.Minute}, 0},
		{[]time.Duration{30 * time.Second, 2 * time.Minute}, 3 * time.Minute},
	} {
		var taken []time.Time
		for _, d := range c.taken {
			taken = append(taken, base.Add(d))
		}
		if got := staggered(base, taken, gap); !got.Equal(base.Add(c.want)) {
			t.Errorf("taken %v: %v, want +%v", c.taken, got.Sub(base), c.want)
		}
	}
}
