package classify

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

var dt0 = time.Unix(5_000, 0)

func ms(n int) time.Time { return dt0.Add(time.Duration(n) * time.Millisecond) }

func TestDebouncerHold(t *testing.T) {
	d := newDebouncer(DebounceHold, dt0)
	check := func(now int, want Raw, since int) {
		t.Helper()
		r, s := d.at(ms(now))
		if r != want || !s.Equal(ms(since)) {
			t.Errorf("at %dms: %v since %v, want %v since %dms", now, r, s.Sub(dt0), want, since)
		}
	}
	check(0, RawIdle, 0)
	d.set(ms(1000), RawThinking)
	check(1199, RawIdle, 0)
	check(1200, RawThinking, 1000) // since: when the screen first showed it
	// A blip shorter than the hold is never reported.
	d.set(ms(1300), RawIdle)
	d.set(ms(1450), RawThinking)
	check(1500, RawThinking, 1000)
	check(5000, RawThinking, 1000)
	// Commits happen on the timeline, not when queried: Streaming held from
	// 6000 to 6300 with no query in between, then ToolUse.
	d.set(ms(6000), RawStreaming)
	d.set(ms(6300), RawToolUse)
	check(6300, RawStreaming, 6000)
	check(6499, RawStreaming, 6000)
	check(6500, RawToolUse, 6300)
	// Re-setting the same raw state does not restart its clock.
	d.set(ms(7000), RawIdle)
	d.set(ms(7100), RawIdle)
	check(7200, RawIdle, 7000)
}

// TestDebouncerSettles: whatever the screen does, 200ms after its last
// change the reported state is the last raw state (the 300ms contract).
func TestDebouncerSettles(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 500; trial++ {
		d := newDebouncer(DebounceHold, dt0)
		now, last := 0, RawIdle
		for i := rng.Intn(30); i >= 0; i-- {
			now += rng.Intn(400)
			last = Raw(rng.Intn(int(RawNeedsInput) + 1))
			d.set(ms(now), last)
		}
		if r, _ := d.at(ms(now + 300)); r != last {
			t.Fatalf("trial %d: %v 300ms after the last screen, want %v", trial, r, last)
		}
	}
}

// claudeScreen renders a busy Claude Code screen: the transcript text, a
// status line with the given spinner glyph and elapsed seconds, the prompt.
func claudeScreen(text, glyph string, secs int, title string) Screen {
	lines := []string{"> explain the store package", ""}
	if text != "" {
		lines = append(lines, "⏺ "+text, "")
	}
	if glyph != "" {
		lines = append(lines, fmt.Sprintf("%s Explaining… (%ds · esc to interrupt)", glyph, secs), "")
	}
	lines = append(lines, strings.Repeat("─", 40), "❯", strings.Repeat("─", 40), "  ? for shortcuts")
	return Screen{Lines: lines, Title: title}
}

var glyphs = []string{"·", "✢", "✳", "✶", "✻", "✽"}
var braille = []string{"⠂", "⠄", "⠠", "⠐", "⠈", "⠁"}

// sample returns the reported state every 10ms in [from, to).
func sample(c Classifier, from, to int) map[session.State]int {
	seen := map[session.State]int{}
	for n := from; n < to; n += 10 {
		st, _ := c.State(ms(n))
		seen[st]++
	}
	return seen
}

func TestSpinnerRedrawNeverFlickers(t *testing.T) {
	c := NewRules(Claude, dt0)
	// 5s of spinner redraws every 80ms, nothing else changing.
	for i, n := 0, 0; n < 5000; i, n = i+1, n+80 {
		c.Screen(ms(n), claudeScreen("", glyphs[i%len(glyphs)], n/1000, braille[i%len(braille)]+" Explain"))
		st, _ := c.State(ms(n))
		if n >= 200 && st != session.Thinking {
			t.Fatalf("at %dms: %v, want Thinking throughout", n, st)
		}
	}
	if seen := sample(c, 200, 5000); len(seen) != 1 || seen[session.Thinking] == 0 {
		t.Errorf("states seen: %v", seen)
	}
}

func TestStreamingSteadyThenStops(t *testing.T) {
	c := NewRules(Claude, dt0)
	text := "The store"
	i := 0
	// Text grows every 150ms for 2s; spinner redraws every 50ms between.
	for n := 0; n < 2000; n += 50 {
		if n%150 == 0 {
			text += " word"
		}
		c.Screen(ms(n), claudeScreen(text, glyphs[i%len(glyphs)], n/1000, braille[i%len(braille)]))
		i++
	}
	// The first screen is a baseline: Streaming from the first change (50ms
	// would not change text; 150ms does) plus the hold.
	if seen := sample(c, 350, 2000); len(seen) != 1 || seen[session.Streaming] == 0 {
		t.Errorf("while streaming: %v", seen)
	}
	// Text stops at 1950ms; the spinner keeps going: Thinking once
	// StreamHold has passed (seen at the next redraw), plus the debounce
	// hold, and not before. States are queried as time passes.
	lastText := 1950
	switchAt := lastText + int(Claude.StreamHold/time.Millisecond) + int(DebounceHold/time.Millisecond)
	for n := 2000; n < 5000; n += 50 {
		c.Screen(ms(n), claudeScreen(text, glyphs[i%len(glyphs)], n/1000, braille[i%len(braille)]))
		i++
		want := session.Streaming
		if n >= switchAt {
			want = session.Thinking
		}
		if st, _ := c.State(ms(n)); st != want {
			t.Fatalf("at %dms: %v, want %v", n, st, want)
		}
	}
}

func TestRulesLifecycle(t *testing.T) {
	c := NewRules(Claude, dt0)
	if st, since := c.State(ms(10_000)); st != session.Idle || !since.Equal(dt0) {
		t.Errorf("before any screen: %v since %v", st, since.Sub(dt0))
	}
	c.Output(ms(10_000), 100) // output alone changes nothing
	if st, _ := c.State(ms(20_000)); st != session.Idle {
		t.Errorf("after output only: %v", st)
	}
	ask := Screen{Title: "⠐ Run tests", Lines: []string{
		"⏺ Bash(npm test)", "", "Do you want to proceed?", "❯ 1. Yes", "  2. No, and tell Claude what to do differently (esc)"}}
	c.Screen(ms(20_000), ask)
	if c.NeedsInput(ms(20_199)) {
		t.Error("NeedsInput before the hold")
	}
	if !c.NeedsInput(ms(20_200)) {
		t.Error("NeedsInput false after the hold")
	}
	if st, _ := c.State(ms(20_200)); st != session.Idle {
		t.Errorf("needs input on the wire: %v, want Idle", st)
	}
	c.Exit(ms(21_000))
	c.Screen(ms(21_100), claudeScreen("x", "✻", 1, "⠂"))
	c.Exit(ms(22_000))
	if st, since := c.State(ms(30_000)); st != session.Dead || !since.Equal(ms(21_000)) {
		t.Errorf("after exit: %v since %v", st, since.Sub(dt0))
	}
	if c.NeedsInput(ms(30_000)) {
		t.Error("NeedsInput after exit")
	}
}
