package sessions

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/internal/shapetest"
	"github.com/heimdall-tui/heimdall-tui/tui/layout"
)

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) time.Time { return now.Add(-d) }

// fixture has every state, a session needing input (with its agent's
// reason), a dead one with exit code 3, a long name, a wide-character
// name, a title, a finished turn nobody has seen (Done) and a failed one
// (Error).
func fixture() []session.Info {
	return []session.Info{
		{ID: "claude-1", Agent: "claude", Alive: true, State: session.Thinking, StateSince: ago(12 * time.Second), LastOutput: ago(time.Second), Title: "⠂ Refactor\x1b[31m parser"},
		{ID: "claude-2", Agent: "claude", Alive: true, State: session.Streaming, StateSince: ago(3 * time.Minute), LastOutput: ago(0)},
		{ID: "codex-1", Agent: "codex", Alive: true, State: session.ToolUse, StateSince: ago(90 * time.Second), LastOutput: ago(4 * time.Second)},
		{ID: "aider-1", Agent: "aider", Alive: true, State: session.Idle, NeedsInput: true, Reason: "Edit: src/parser.go", Title: "not shown", StateSince: ago(2 * time.Hour), LastOutput: ago(2 * time.Hour)},
		{ID: "shell-1", Agent: "shell", Alive: true, State: session.Active, StateSince: ago(5 * time.Second), LastOutput: ago(5 * time.Second)},
		{ID: "refactor-the-entire-authentication-subsystem", Agent: "claude", Alive: true, State: session.Idle, Done: true, StateSince: ago(26 * time.Hour), LastOutput: ago(26 * time.Hour)},
		{ID: "build-1", Agent: "make", Alive: false, State: session.Dead, ExitCode: 3, StateSince: ago(40 * time.Minute), LastOutput: ago(41 * time.Minute)},
		{ID: "日本語-session", Agent: "gemini", Alive: true, State: session.Idle, Error: "rate_limit: resets 3pm"},
	}
}

var (
	dark  = themes.Build(themes.Dark(), false)
	light = themes.Build(themes.Light(), false)
	mono  = themes.Build(themes.Dark(), true)
)

func TestGolden(t *testing.T) {
	themesByName := []struct {
		name string
		st   *themes.Styles
	}{{"dark", dark}, {"light", light}}
	for _, th := range themesByName {
		// 28 and 42 are the list's width beside the preview at 80 and 120
		// columns; 60 is the stacked list on a 60-column screen.
		for _, w := range []int{28, 42, 60, 80, 120, 200} {
			t.Run(fmt.Sprintf("%s/%d", th.name, w), func(t *testing.T) {
				out := View(th.st, fixture(), 2, 0, now, w, 10)
				shapetest.Check(t, out, w, 10)
				golden.RequireEqual(t, out)
			})
		}
	}
	t.Run("monochrome", func(t *testing.T) {
		out := View(mono, fixture(), 3, 0, now, 80, 10)
		shapetest.Check(t, out, 80, 10)
		if strings.Contains(out, "38;2") || strings.Contains(out, "48;2") {
			t.Error("monochrome list has colours")
		}
		golden.RequireEqual(t, out)
	})
	t.Run("empty", func(t *testing.T) {
		if out := ViewHint(dark, nil, 0, 0, now, 40, 3, "no sessions match /zz"); !strings.Contains(ansi.Strip(out), "no sessions match /zz") {
			t.Errorf("custom hint not shown:\n%s", ansi.Strip(out))
		}
		out := View(dark, nil, 0, 0, now, 60, 4)
		shapetest.Check(t, out, 60, 4)
		if !strings.Contains(ansi.Strip(out), DefaultEmpty) {
			t.Errorf("empty list does not say so:\n%s", ansi.Strip(out))
		}
		golden.RequireEqual(t, out)
	})
	t.Run("hosts", func(t *testing.T) {
		// Sessions of another host: a HOST column before the names.
		infos := append(fixture()[:3], session.Info{ID: "box:claude-1", Host: "box", Agent: "claude", Alive: true, State: session.Idle, NeedsInput: true, Reason: "Bash: make"},
			session.Info{ID: "build-box:r2", Host: "build-box", Agent: "shell", Alive: true, State: session.Active})
		for _, w := range []int{42, 120} {
			out := View(dark, infos, 0, 0, now, w, 8)
			shapetest.Check(t, out, w, 8)
			if head := strings.Fields(strings.Split(ansi.Strip(out), "\n")[0]); head[0] != "HOST" || head[1] != "NAME" {
				t.Errorf("at %d: header %q", w, head)
			}
			if !strings.Contains(ansi.Strip(out), " build-box build-box") {
				t.Errorf("at %d: no host:\n%s", w, ansi.Strip(out))
			}
		}
		golden.RequireEqual(t, View(dark, infos, 0, 0, now, 120, 8))
	})
	t.Run("scrolled", func(t *testing.T) {
		out := View(dark, fixture(), 6, layout.VisibleRange(8, 6, 0, 4-HeaderRows), now, 60, 4)
		shapetest.Check(t, out, 60, 4)
		golden.RequireEqual(t, out)
	})
}

func TestColumnsAdapt(t *testing.T) {
	cases := []struct {
		w    int
		want []string // header words
	}{
		{28, []string{"NAME", "STATE"}},
		{40, []string{"NAME", "STATE", "TITLE"}}, // the list at 80 columns
		{48, []string{"NAME", "STATE", "TIME", "TITLE"}},
		{60, []string{"NAME", "AGENT", "STATE", "TIME", "IDLE", "TITLE"}},
		{72, []string{"NAME", "AGENT", "STATE", "TIME", "IDLE", "EXIT", "TITLE"}},
	}
	for _, c := range cases {
		lines := strings.Split(ansi.Strip(View(dark, fixture(), 0, 0, now, c.w, 10)), "\n")
		if got := strings.Fields(lines[0]); strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("w=%d: header %q, want %q", c.w, got, c.want)
		}
	}
}

// A wider terminal never shows less: at every terminal width the list
// has the title (the needs-input reason), stacked or side by side, and
// within each layout a wider terminal's list has every column a narrower
// one's has. (From 79 to 80 columns the preview moves beside the list:
// the list trades its duration columns for it, never the title.)
func TestWiderShowsNoLess(t *testing.T) {
	var prev []string
	stacked := true
	for tw := layout.MinWidth; tw <= 240; tw++ {
		l := layout.Compute(tw, 30, len(fixture()), layout.ModeSplit)
		head := strings.Fields(strings.Split(ansi.Strip(View(dark, fixture(), 0, 0, now, l.List.W, 10)), "\n")[0])
		if !slices.Contains(head, "TITLE") {
			t.Errorf("%d columns (list %d): no TITLE in %q", tw, l.List.W, head)
		}
		if l.Stacked != stacked {
			stacked, prev = l.Stacked, nil
		}
		for _, c := range prev {
			if !slices.Contains(head, c) {
				t.Errorf("%d columns (list %d): %q lost %s, shown one column narrower", tw, l.List.W, head, c)
			}
		}
		prev = head
	}
}

// ShownSince names exactly the instants of the durations View draws: the
// TIME and IDLE columns when the width has them, the rows from the offset
// that fit, no IDLE for a dead session, nothing for "-".
func TestShownSince(t *testing.T) {
	infos := fixture()
	all := func(from, to int, withIdle bool) []time.Time {
		var out []time.Time
		for _, in := range infos[from:to] {
			if !in.StateSince.IsZero() {
				out = append(out, in.StateSince)
			}
			if withIdle && in.Alive && !in.LastOutput.IsZero() {
				out = append(out, in.LastOutput)
			}
		}
		return out
	}
	cases := []struct {
		name         string
		offset, w, h int
		want         []time.Time
	}{
		{"no duration columns", 0, 28, 10, nil},
		{"TIME only", 0, 48, 10, all(0, len(infos), false)},
		{"TIME and IDLE", 0, 60, 20, all(0, len(infos), true)},
		{"scrolled, three rows", 4, 60, 1 + 3, all(4, 7, true)},
		{"header only", 0, 60, 1, nil},
	}
	for _, c := range cases {
		got := ShownSince(infos, c.offset, c.w, c.h)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: ShownSince = %v, want %v", c.name, got, c.want)
		}
		// Every instant named is drawn: its duration's text is on screen.
		screen := ansi.Strip(ViewHint(dark, infos, 0, c.offset, now, c.w, c.h, ""))
		for _, at := range got {
			if d := FormatDuration(now.Sub(at)); !strings.Contains(screen, " "+d+" ") {
				t.Errorf("%s: %s (since %v) is not on screen:\n%s", c.name, d, at, screen)
			}
		}
	}
}

func TestRowContent(t *testing.T) {
	out := View(dark, fixture(), 2, 0, now, 80, 10)
	plain := strings.Split(ansi.Strip(out), "\n")
	raw := strings.Split(out, "\n")
	find := func(id string) (string, string) {
		for i, l := range plain {
			if strings.Contains(l, id) {
				return l, raw[i]
			}
		}
		t.Fatalf("no row for %q in\n%s", id, strings.Join(plain, "\n"))
		return "", ""
	}
	l, r := find("codex-1")
	if !strings.HasPrefix(l, ">  codex-1") || !strings.Contains(l, "ToolUse") || !strings.Contains(l, "1m") || !strings.Contains(l, "4s") {
		t.Errorf("selected codex row: %q", l)
	}
	// The selection background runs over the whole row: every styled
	// segment carries it and nothing is unstyled.
	bg := "48;2;51;64;90"
	if segs := strings.Split(r, "\x1b[m"); len(segs) < 5 {
		t.Errorf("selected row has too few segments: %q", r)
	} else {
		for _, s := range segs[:len(segs)-1] {
			if !strings.Contains(s, bg) {
				t.Errorf("selected row segment without the selection background: %q", s)
			}
		}
	}
	if l, r := find("claude-1"); strings.Contains(r, bg) || !strings.HasPrefix(l, "   claude-1") || !strings.Contains(l, "Thinking") || !strings.Contains(l, "12s") {
		t.Errorf("claude-1 row: %q", l)
	}
	if l, r := find("aider-1"); !strings.HasPrefix(l, " ! aider-1") || !strings.Contains(l, NeedsInputBadge) || !strings.Contains(l, "2h") || !strings.Contains(r, "255;158;100") {
		t.Errorf("needs-input row: %q / %q", l, r)
	}
	if l, _ := find("build-1"); !strings.Contains(l, "Dead") || !strings.Contains(l, "exit 3") || !strings.Contains(l, "40m") {
		t.Errorf("dead row: %q", l)
	}
	if l, _ := find("refactor-"); !strings.Contains(l, "…") || strings.Contains(l, "subsystem") || !strings.Contains(l, "1d") {
		t.Errorf("long name row: %q", l)
	}
	if l, _ := find("日本語"); !strings.Contains(l, "Error") || !strings.Contains(l, " - ") {
		t.Errorf("wide name row: %q", l)
	}
}

// TestShape checks every size from 1×1 to 130×14: exactly h lines of
// exactly w cells, whatever the selection and offset.
func TestShape(t *testing.T) {
	infos := fixture()
	infos = append(infos, session.Info{ID: "evil\x1b[2J\nname\t", Agent: "\x1b]0;x\x07", Alive: true})
	for _, st := range []*themes.Styles{dark, mono} {
		for w := 1; w <= 130; w++ {
			for h := 1; h <= 14; h++ {
				sel := (w + h) % len(infos)
				off := layout.VisibleRange(len(infos), sel, 0, h-HeaderRows)
				out := View(st, infos, sel, off, now, w, h)
				shapetest.Check(t, out, w, h)
				if strings.Contains(ansi.Strip(out), "\x1b") {
					t.Fatalf("%dx%d: escape sequence leaked: %q", w, h, out)
				}
			}
			shapetest.Check(t, View(st, nil, 0, 0, now, w, 3), w, 3)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	cases := map[time.Duration]string{
		-time.Second: "0s", 0: "0s", 999 * time.Millisecond: "0s", 5 * time.Second: "5s",
		59 * time.Second: "59s", time.Minute: "1m", 3*time.Minute + 59*time.Second: "3m",
		59 * time.Minute: "59m", time.Hour: "1h", 23 * time.Hour: "23h",
		24 * time.Hour: "1d", 100 * 24 * time.Hour: "100d",
	}
	for d, want := range cases {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// The selected row is always drawn at every height, however the
// selection moves.
func TestListScrollKeepsSelectionShown(t *testing.T) {
	infos := fixture()
	for h := 2; h <= 10; h++ {
		off := 0
		for _, sel := range []int{0, 7, 3, 4, 0, 6, 1, 5, 2} {
			off = layout.VisibleRange(len(infos), sel, off, h-HeaderRows)
			if !strings.Contains("\n"+ansi.Strip(View(dark, infos, sel, off, now, 120, h)), "\n>") {
				t.Fatalf("h=%d sel=%d off=%d: selected row not shown", h, sel, off)
			}
		}
	}
}

// A list taller than its rows says how many rows are above and below,
// and how many of those need input: a waiting session is never out of
// view unsaid.
func TestViewSaysWhatIsOutOfView(t *testing.T) {
	st := themes.Build(themes.Dark(), false)
	var infos []session.Info
	for i := range 10 {
		infos = append(infos, session.Info{ID: fmt.Sprintf("s%d", i), Alive: true, State: session.Idle})
	}
	infos[8].NeedsInput = true
	head := func(offset, h int) string {
		return strings.Split(ansi.Strip(View(st, infos, offset, offset, time.Time{}, 40, h)), "\n")[0]
	}
	if got := head(2, 4); !strings.HasSuffix(got, "↑2 ↓5 !1 ") {
		t.Fatalf("scrolled, a needing row below: %q", got)
	}
	if got := head(7, 4); !strings.HasSuffix(got, "↑7 ") {
		t.Fatalf("at the end: %q", got)
	}
	if got := head(0, 12); strings.ContainsAny(got, "↑↓") {
		t.Fatalf("all shown: %q", got)
	}
	if out := View(st, infos, 2, 2, time.Time{}, 40, 4); ansi.StringWidth(strings.Split(out, "\n")[0]) != 40 {
		t.Fatalf("header width %d", ansi.StringWidth(strings.Split(out, "\n")[0]))
	}
}
