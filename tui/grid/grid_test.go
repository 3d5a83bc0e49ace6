package grid

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/internal/shapetest"
	"github.com/heimdall-tui/heimdall-tui/tui/layout"
	"github.com/heimdall-tui/heimdall-tui/tui/pane"
	"github.com/heimdall-tui/heimdall-tui/tui/sessions"
)

func snap(cols, rows int, data string) *vt.Snapshot {
	e := vt.New(cols, rows, vt.Options{})
	e.Write([]byte(data))
	return e.Snapshot()
}

// screens are a few kinds of session screen, 80×24 like real agents.
var screens = []*vt.Snapshot{
	snap(80, 24, "\x1b[1;38;5;75m● claude\x1b[m \x1b[2m~/src/app\x1b[m\r\n\r\n\x1b[32m✓\x1b[m Read main.go\r\n\x1b[33m⏺\x1b[m Thinking…\x1b[24;1H\x1b[1m>\x1b[m "),
	snap(80, 24, "$ make test\r\nok   pkg/a  0.12s\r\n\x1b[31mFAIL\x1b[m pkg/b  0.40s\r\n$ "),
	snap(80, 24, "\x1b[7m aider \x1b[m\r\nAllow edits to \x1b[4mREADME.md\x1b[m? (Y)es/(N)o "),
}

var states = []struct {
	state string
	attn  bool
}{{"Thinking", false}, {"Dead", false}, {"Idle", true}, {"Streaming", false}, {"ToolUse", false}, {"Active", false}, {"Idle", false}}

// panes returns n panes, the second one focused.
func panes(n int) []Pane {
	ps := make([]Pane, n)
	for i := range ps {
		s := states[i%len(states)]
		ps[i] = Pane{
			ID: fmt.Sprintf("session-%d", i+1), State: s.state, NeedsInput: s.attn,
			Focused: i == min(1, n-1), Snap: screens[i%len(screens)],
		}
	}
	ps[0].Title = "claude-main"
	return ps
}

// bodyRects is the grid layout of n panes on a w×h screen, relative to
// the body, and the body's size.
func bodyRects(w, h, n int) ([]layout.Rect, int, int) {
	l := layout.Compute(w, h, n, layout.ModeGrid)
	rs := make([]layout.Rect, len(l.Grid))
	for i, r := range l.Grid {
		rs[i] = r.Translate(-l.Body.X, -l.Body.Y)
	}
	return rs, l.Body.W, l.Body.H
}

func TestGolden(t *testing.T) {
	heights := map[int]int{60: 20, 80: 24, 120: 35, 200: 50}
	for _, th := range []struct {
		name string
		st   *themes.Styles
	}{{"dark", themes.Build(themes.Dark(), false)}, {"light", themes.Build(themes.Light(), false)}} {
		for _, w := range []int{60, 80, 120, 200} {
			for _, n := range []int{1, 4, 9} {
				t.Run(fmt.Sprintf("%s/%d/n%d", th.name, w, n), func(t *testing.T) {
					rs, bw, bh := bodyRects(w, heights[w], n)
					out := View(th.st, panes(n), rs, bw, bh, true)
					shapetest.Check(t, out, bw, bh)
					golden.RequireEqual(t, out)
				})
			}
		}
	}
	t.Run("monochrome", func(t *testing.T) {
		rs, bw, bh := bodyRects(80, 24, 4)
		out := View(themes.Build(themes.Dark(), true), panes(4), rs, bw, bh, false)
		shapetest.Check(t, out, bw, bh)
		if strings.Contains(out, "38;2") || strings.Contains(out, "48;2") || strings.Contains(out, "38;5") || strings.Contains(out, "[0;31m") {
			t.Error("monochrome grid has colours")
		}
		golden.RequireEqual(t, out)
	})
}

func TestTitlesAndFocus(t *testing.T) {
	st := themes.Build(themes.Dark(), false)
	rs, bw, bh := bodyRects(200, 50, 4)
	out := View(st, panes(4), rs, bw, bh, true)
	plain := ansi.Strip(out)
	for _, want := range []string{"claude-main · Thinking", "session-2 · Dead", "session-3 · needs input", "session-4 · Streaming", "FAIL pkg/b", "(Y)es/(N)o"} {
		if !strings.Contains(plain, want) {
			t.Errorf("grid lacks %q:\n%s", want, plain)
		}
	}
	// Only the focused pane (session-2) uses the focus border colour.
	focus := "38;2;122;162;247m╭"
	if c := strings.Count(out, focus); c != 1 {
		t.Errorf("%d panes with the focus border, want 1", c)
	}
	if !strings.Contains(strings.Split(out, "\n")[rs[1].Y], focus) {
		t.Error("focus border not on the focused pane's row")
	}
}

// TestShape renders grids at every size from 20×5 up: never a line wider
// (or narrower) than the screen, never a wrong number of lines.
func TestShape(t *testing.T) {
	st := themes.Build(themes.Dark(), false)
	for w := 20; w <= 210; w += 7 {
		for h := 5; h <= 60; h += 5 {
			for _, n := range []int{1, 2, 5, 9, 16, 40} {
				rs, bw, bh := bodyRects(w, h, n)
				if len(rs) == 0 {
					continue // too small for a layout
				}
				shapetest.Check(t, View(st, panes(n), rs, bw, bh, true), bw, bh)
			}
		}
	}
	// Hand-made rects: fewer panes than rects, a rect past the edge, an
	// empty one, nil snapshots.
	ps := []Pane{{ID: "a"}, {ID: "b", Snap: screens[0]}}
	rs := []layout.Rect{{X: 0, Y: 0, W: 10, H: 4}, {X: 8, Y: 2, W: 30, H: 10}, {}}
	shapetest.Check(t, View(st, ps, rs, 25, 8, true), 25, 8)
	shapetest.Check(t, View(st, nil, nil, 25, 8, true), 25, 8)
}

// BenchmarkGrid16 is one 200×50 frame of sixteen panes.
func BenchmarkGrid16(b *testing.B) {
	st := themes.Build(themes.Dark(), false)
	rs, bw, bh := bodyRects(200, 50, 16)
	ps := panes(16)
	b.ReportAllocs()
	for b.Loop() {
		View(st, ps, rs, bw, bh, true)
	}
}

// TestDashboardShape composes whole screens the way the app does (header,
// list, preview or grid, footer; the notice when too small) in every mode
// at sizes from 20×5 to 220×62: every screen is exactly w×h.
func TestDashboardShape(t *testing.T) {
	st := themes.Build(themes.Dark(), false)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	infos := []session.Info{
		{ID: "claude-1", Agent: "claude", Alive: true, State: session.Thinking, StateSince: now.Add(-time.Minute)},
		{ID: "a-rather-long-session-name-日本", Agent: "aider", Alive: true, NeedsInput: true},
		{ID: "build", Agent: "make", ExitCode: 2},
	}
	for w := 20; w <= 220; w += 5 {
		for h := 5; h <= 62; h += 4 {
			for _, m := range []layout.Mode{layout.ModeSplit, layout.ModeGrid, layout.ModeZoom} {
				l := layout.Compute(w, h, len(infos), m)
				var blocks []layout.Block
				switch {
				case l.TooSmall:
					blocks = append(blocks, layout.Block{Rect: l.Body, Content: layout.TooSmallNotice(w, h)})
				case m == layout.ModeGrid:
					rs := make([]layout.Rect, len(l.Grid))
					for i, r := range l.Grid {
						rs[i] = r.Translate(-l.Body.X, -l.Body.Y)
					}
					blocks = append(blocks, layout.Block{Rect: l.Body, Content: View(st, panes(len(infos)), rs, l.Body.W, l.Body.H, true)})
				default:
					if !l.List.Empty() {
						blocks = append(blocks, layout.Block{Rect: l.List, Content: sessions.View(st, infos, 1, 0, now, l.List.W, l.List.H)})
					}
					r := l.Preview
					body, cropped := pane.Render(screens[0], r.W-2, r.H-2, pane.Options{Color: true, Cursor: true})
					blocks = append(blocks, layout.Block{Rect: r, Content: pane.Frame(st, pane.Border{Title: "claude-1", State: "Thinking", Focused: true, Cropped: cropped}, body, r.W, r.H)})
				}
				if !l.TooSmall {
					blocks = append(blocks,
						layout.Block{Rect: l.Header, Content: st.Header.Render(strings.Repeat("header ", w))},
						layout.Block{Rect: l.Footer, Content: st.Footer.Render("q quit · ? help")})
				}
				out := layout.Compose(w, h, blocks...)
				lines := strings.Split(out, "\n")
				if len(lines) != h {
					t.Fatalf("%s %dx%d: %d lines", m, w, h, len(lines))
				}
				for i, line := range lines {
					if got := ansi.StringWidth(line); got != w {
						t.Fatalf("%s %dx%d: line %d is %d cells: %q", m, w, h, i, got, line)
					}
				}
			}
		}
	}
}
