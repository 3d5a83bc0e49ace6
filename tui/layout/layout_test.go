package layout

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/heimdall-tui/heimdall-tui/tui/internal/shapetest"
)

var sizes = [][2]int{{20, 5}, {40, 10}, {60, 20}, {80, 24}, {120, 35}, {200, 50}}
var counts = []int{0, 1, 3, 16, 40}
var modes = []Mode{ModeSplit, ModeGrid, ModeZoom}

// TestGolden draws every mode at every size for several session counts;
// each golden file holds one mode and size with a section per count.
func TestGolden(t *testing.T) {
	for _, m := range modes {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s/%dx%d", m, sz[0], sz[1]), func(t *testing.T) {
				var b strings.Builder
				for _, n := range counts {
					l := Compute(sz[0], sz[1], n, m)
					fmt.Fprintf(&b, "n=%d", n)
					if m == ModeGrid && !l.TooSmall {
						fmt.Fprintf(&b, " (%d shown, capacity %d)", len(l.Grid), l.Capacity)
					}
					b.WriteString("\n" + Draw(l, sz[0], sz[1]) + "\n\n")
				}
				golden.RequireEqual(t, b.String())
			})
		}
	}
}

// checkLayout verifies the layout's invariants and reports violations.
func checkLayout(t *testing.T, w, h, n int, m Mode, l Layout) {
	t.Helper()
	screen := Rect{0, 0, w, h}
	inside := func(name string, r Rect) {
		if r.Empty() {
			return
		}
		if r.X < 0 || r.Y < 0 || r.X+r.W > w || r.Y+r.H > h {
			t.Errorf("%dx%d n=%d %s: %s %v outside the screen", w, h, n, m, name, r)
		}
	}
	if w < MinWidth || h < MinHeight {
		if !l.TooSmall {
			t.Errorf("%dx%d: want TooSmall", w, h)
		}
		if l.Body != (Rect{0, 0, max(w, 0), max(h, 0)}) || !l.List.Empty() || !l.Preview.Empty() || len(l.Grid) != 0 {
			t.Errorf("%dx%d: TooSmall layout sets more than Body: %+v", w, h, l)
		}
		return
	}
	if l.TooSmall {
		t.Fatalf("%dx%d: TooSmall at a usable size", w, h)
	}
	named := map[string]Rect{"header": l.Header, "body": l.Body, "footer": l.Footer}
	for k, r := range named {
		inside(k, r)
	}
	if l.Header.H != 1 || l.Footer.H != 1 || l.Body.H != h-2 || l.Body.W != w {
		t.Errorf("%dx%d: header/body/footer = %v %v %v", w, h, l.Header, l.Body, l.Footer)
	}
	var parts []Rect
	switch m {
	case ModeSplit:
		parts = []Rect{l.List, l.Preview}
		if l.Stacked != (w < SideBySide) {
			t.Errorf("%dx%d: Stacked = %v", w, h, l.Stacked)
		}
		if l.Stacked && l.List.H < 3 {
			t.Errorf("%dx%d: stacked list only %d rows", w, h, l.List.H)
		}
		if !l.Stacked && l.List.W < 28 {
			t.Errorf("%dx%d: list only %d columns", w, h, l.List.W)
		}
	case ModeZoom:
		parts = []Rect{l.Preview}
	case ModeGrid:
		parts = l.Grid
		if want := min(n, l.Capacity); len(l.Grid) != want {
			t.Errorf("%dx%d n=%d: %d grid rects, want %d", w, h, n, len(l.Grid), want)
		}
		for _, r := range l.Grid {
			if r.W < MinPaneW || r.H < MinPaneH {
				t.Errorf("%dx%d n=%d: pane %v below the minimum", w, h, n, r)
			}
		}
	}
	area := 0
	for i, r := range parts {
		inside(fmt.Sprintf("part %d", i), r)
		if !l.Body.Intersects(r) || r.X < l.Body.X || r.Y < l.Body.Y || r.X+r.W > l.Body.X+l.Body.W || r.Y+r.H > l.Body.Y+l.Body.H {
			t.Errorf("%dx%d n=%d %s: part %v not inside body %v", w, h, n, m, r, l.Body)
		}
		area += r.W * r.H
		for j := range i {
			if r.Intersects(parts[j]) {
				t.Errorf("%dx%d n=%d %s: %v overlaps %v", w, h, n, m, r, parts[j])
			}
		}
	}
	// Disjoint parts inside the body with the body's area cover it.
	if len(parts) > 0 && area != l.Body.W*l.Body.H {
		t.Errorf("%dx%d n=%d %s: parts cover %d of %d body cells", w, h, n, m, area, l.Body.W*l.Body.H)
	}
	_ = screen
}

// TestProperties checks every size from below the minimum up to 220×70
// for many session counts: rects on screen, no overlaps, the body covered.
func TestProperties(t *testing.T) {
	for w := -1; w <= 220; w += 3 {
		for h := -1; h <= 70; h += 2 {
			for _, n := range []int{0, 1, 2, 3, 5, 7, 12, 16, 25, 40, 100, 1000} {
				for _, m := range modes {
					checkLayout(t, w, h, n, m, Compute(w, h, n, m))
				}
			}
		}
	}
}

func TestGridShape(t *testing.T) {
	// Four panes on a 160×48 body: 2×2 of 80×24 is exact.
	r := GridRects(Rect{0, 0, 160, 48}, 4)
	for _, p := range r {
		if p.W != 80 || p.H != 24 {
			t.Fatalf("4 panes on 160x48 = %v, want 2x2 of 80x24", r)
		}
	}
	// Two panes on a wide, short body sit side by side; on a tall narrow
	// one, stacked.
	if r := GridRects(Rect{0, 0, 200, 30}, 2); r[0].Y != r[1].Y {
		t.Errorf("2 panes on 200x30 = %v, want side by side", r)
	}
	if r := GridRects(Rect{0, 0, 80, 60}, 2); r[0].X != r[1].X {
		t.Errorf("2 panes on 80x60 = %v, want stacked", r)
	}
	// Three panes on 160×48: two on top, one full-width below, no holes.
	r = GridRects(Rect{0, 0, 160, 48}, 3)
	if len(r) != 3 || r[2].W != 160 || r[0].W+r[1].W != 160 {
		t.Errorf("3 panes on 160x48 = %v", r)
	}
	// The chosen shape is never worse than any other valid row count.
	for k := 1; k <= 20; k++ {
		b := Rect{0, 0, 197, 53}
		got := meanAspectErr(GridRects(b, k))
		for rows := 1; rows <= k; rows++ {
			if alt := manualRows(b, k, rows); alt != nil && meanAspectErr(alt) < got-1e-9 {
				t.Errorf("k=%d: %d rows gives aspect error %.3f < chosen %.3f", k, rows, meanAspectErr(alt), got)
			}
		}
	}
}

func meanAspectErr(rs []Rect) float64 {
	s := 0.0
	for _, r := range rs {
		s += math.Abs(math.Log(float64(r.W) / float64(r.H) / (80.0 / 24)))
	}
	return s / float64(len(rs))
}

// manualRows tiles b with k panes in the given number of rows, or nil if
// some pane would be below the minimum (an independent re-derivation).
func manualRows(b Rect, k, rows int) []Rect {
	var out []Rect
	y := 0
	for i := range rows {
		rh := b.H / rows
		if i < b.H%rows {
			rh++
		}
		cols := k / rows
		if i < k%rows {
			cols++
		}
		x := 0
		for j := range cols {
			pw := b.W / cols
			if j < b.W%cols {
				pw++
			}
			if pw < MinPaneW || rh < MinPaneH {
				return nil
			}
			out = append(out, Rect{x, y, pw, rh})
			x += pw
		}
		y += rh
	}
	return out
}

func TestGridCapacityAndPage(t *testing.T) {
	l := Compute(80, 24, 40, ModeGrid) // body 80×22: 4 columns × 4 rows of 20×5
	if l.Capacity != 16 || len(l.Grid) != 16 {
		t.Fatalf("80x24 capacity = %d, %d rects; want 16", l.Capacity, len(l.Grid))
	}
	cases := []struct{ n, focused, cap, start, end int }{
		{40, 0, 16, 0, 16}, {40, 15, 16, 0, 16}, {40, 16, 16, 16, 32},
		{40, 39, 16, 32, 40}, {40, 99, 16, 32, 40}, {40, -3, 16, 0, 16},
		{3, 1, 16, 0, 3}, {0, 0, 16, 0, 0}, {5, 2, 0, 0, 0},
	}
	for _, c := range cases {
		if s, e := GridPage(c.n, c.focused, c.cap); s != c.start || e != c.end {
			t.Errorf("GridPage(%d, %d, %d) = %d, %d; want %d, %d", c.n, c.focused, c.cap, s, e, c.start, c.end)
		}
	}
}

func TestSplitBreakpoints(t *testing.T) {
	cases := []struct {
		w, h, n      int
		stacked      bool
		listW, listH int
	}{
		{60, 20, 10, true, 60, 6},  // a third of the 18-row body
		{60, 20, 1, true, 60, 3},   // one session: header + row, at least 3
		{79, 24, 30, true, 79, 7},  // still stacked below 80
		{80, 24, 5, false, 40, 22}, // 35% of 80 is 28 < 40
		{119, 30, 5, false, 41, 28},
		{120, 35, 5, false, 48, 33}, // 40%
		{200, 50, 5, false, 72, 48}, // capped
	}
	for _, c := range cases {
		l := Compute(c.w, c.h, c.n, ModeSplit)
		if l.Stacked != c.stacked || l.List.W != c.listW || l.List.H != c.listH {
			t.Errorf("%dx%d n=%d: stacked=%v list=%v; want stacked=%v %dx%d", c.w, c.h, c.n, l.Stacked, l.List, c.stacked, c.listW, c.listH)
		}
	}
}

func TestCompose(t *testing.T) {
	red := "\x1b[31m"
	got := Compose(10, 3,
		Block{Rect{0, 0, 10, 3}, "aaaaaaaaaa\naaaaaaaaaa\naaaaaaaaaa"},
		Block{Rect{2, 1, 4, 5}, red + "bbbbbbbb\x1b[m\nzz"}, // cut, clipped below
		Block{Rect{8, 0, 5, 1}, "cc"},                       // runs off the right edge
		Block{Rect{-1, 2, 3, 1}, "日x"},                      // wide char cut on the left
	)
	want := "aaaaaaaacc\n" +
		"aa" + red + "bbbb\x1b[m" + "aaaa\n" +
		" x" + "zz  " + "aaaa"
	if got != want {
		t.Errorf("Compose:\n got %q\nwant %q", got, want)
	}
}

func TestComposeShape(t *testing.T) {
	content := "\x1b[1;38;5;3mhello 世界 wide\x1b[m\nsecond line that is long\n\nx"
	for w := 0; w <= 30; w++ {
		for h := 0; h <= 8; h++ {
			out := Compose(w, h,
				Block{Rect{-3, -1, 12, 4}, content},
				Block{Rect{w / 2, h / 2, w, h}, content},
				Block{Rect{1, 1, 5, 2}, content},
			)
			assertShape(t, fmt.Sprintf("Compose %dx%d", w, h), out, w, h)
		}
	}
}

func TestTooSmallNotice(t *testing.T) {
	for w := 0; w < 50; w++ {
		for h := 0; h < 12; h++ {
			assertShape(t, fmt.Sprintf("notice %dx%d", w, h), TooSmallNotice(w, h), w, h)
		}
	}
	if s := TooSmallNotice(20, 5); !strings.Contains(s, "too small") {
		t.Errorf("20x5 notice does not say too small:\n%s", s)
	}
}

// assertShape fails unless s is exactly h lines of exactly w cells.
func assertShape(t *testing.T, what, s string, w, h int) {
	t.Helper()
	if p := shapetest.Problem(s, w, h); p != "" {
		t.Errorf("%s: %s", what, p)
	}
}
