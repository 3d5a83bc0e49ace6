// Package layout computes where the dashboard's parts go on the screen. It
// is a pure function of (width, height, number of sessions, mode): no
// styles, no state, no I/O. Tests draw the rectangles as ASCII boxes (Draw),
// the way lazygit tests its layouts.
//
// The screen is a header row, a body and a footer row. In the body:
//
//   - ModeSplit shows the session list and a preview of the focused
//     session. Below 80 columns the list sits over the preview (list about
//     a third of the height); from 80 columns the list is on the left (30%,
//     at least 28 columns); from 120 columns it takes 35% (at most 64
//     columns) so more of its columns fit.
//   - ModeGrid tiles the body with one pane per session, choosing rows and
//     columns so panes come as close as possible to an 80×24 terminal's
//     shape. Panes are never smaller than MinPaneW×MinPaneH; when more
//     sessions exist than fit, Grid holds Capacity rects and the caller
//     pages with GridPage.
//   - ModeZoom gives the whole body to one pane (Preview).
//
// Below MinWidth×MinHeight the layout is TooSmall: only Body is set (the
// whole screen) and the caller shows TooSmallNotice there.
//
// All rects are in screen coordinates (0,0 = top-left cell). Preview and
// Grid rects include the pane's border.
package layout

import (
	"fmt"
	"math"
)

// Minimum usable screen and pane sizes.
const (
	MinWidth  = 40
	MinHeight = 10
	MinPaneW  = 20 // a grid pane, border included
	MinPaneH  = 5
)

// Width breakpoints of ModeSplit.
const (
	SideBySide = 80  // from here the list is left of the preview
	Wide       = 120 // from here the list takes a larger share
)

// Rect is a rectangle of cells.
type Rect struct{ X, Y, W, H int }

// Empty reports whether r has no cells.
func (r Rect) Empty() bool { return r.W <= 0 || r.H <= 0 }

// Contains reports whether cell (x, y) is inside r.
func (r Rect) Contains(x, y int) bool {
	return x >= r.X && x < r.X+r.W && y >= r.Y && y < r.Y+r.H
}

// Intersects reports whether r and o share a cell.
func (r Rect) Intersects(o Rect) bool {
	if r.Empty() || o.Empty() {
		return false
	}
	return r.X < o.X+o.W && o.X < r.X+r.W && r.Y < o.Y+o.H && o.Y < r.Y+r.H
}

// Translate returns r moved by (dx, dy); use it to make rects relative to
// a region (e.g. grid rects relative to Body: Translate(-Body.X, -Body.Y)).
func (r Rect) Translate(dx, dy int) Rect { return Rect{r.X + dx, r.Y + dy, r.W, r.H} }

// Inner returns r shrunk by a one-cell border on every side (empty if r is
// too small).
func (r Rect) Inner() Rect {
	if r.W < 2 || r.H < 2 {
		return Rect{X: r.X, Y: r.Y}
	}
	return Rect{r.X + 1, r.Y + 1, r.W - 2, r.H - 2}
}

func (r Rect) String() string { return fmt.Sprintf("(%d,%d %dx%d)", r.X, r.Y, r.W, r.H) }

// Mode is how the body is used.
type Mode uint8

const (
	ModeSplit Mode = iota // session list + preview of the focused session
	ModeGrid              // every session's pane at once
	ModeZoom              // one pane fills the body
)

func (m Mode) String() string {
	switch m {
	case ModeSplit:
		return "split"
	case ModeGrid:
		return "grid"
	case ModeZoom:
		return "zoom"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// Layout is where everything goes. Unused parts are zero Rects.
type Layout struct {
	Header, Body, Footer Rect
	// List and Preview are set in ModeSplit; Preview alone in ModeZoom.
	List, Preview Rect
	// Stacked is true when the list is above the preview (narrow screens).
	Stacked bool
	// Grid is set in ModeGrid: min(n, Capacity) rects tiling Body exactly,
	// in reading order (left to right, top to bottom). Empty when n == 0.
	Grid []Rect
	// Capacity is how many grid panes fit in Body at the minimum pane size
	// (ModeGrid only).
	Capacity int
	// TooSmall: the screen is below MinWidth×MinHeight; only Body (the
	// whole screen, possibly empty) is set.
	TooSmall bool
}

// Compute lays out a w×h screen showing n sessions in mode. It never
// panics: any size, including zero or negative, gives a valid Layout.
func Compute(w, h, n int, mode Mode) Layout {
	w, h, n = max(w, 0), max(h, 0), max(n, 0)
	if w < MinWidth || h < MinHeight {
		return Layout{Body: Rect{0, 0, w, h}, TooSmall: true}
	}
	l := Layout{
		Header: Rect{0, 0, w, 1},
		Body:   Rect{0, 1, w, h - 2},
		Footer: Rect{0, h - 1, w, 1},
	}
	b := l.Body
	switch mode {
	case ModeGrid:
		l.Capacity = GridCapacity(b)
		l.Grid = GridRects(b, min(n, l.Capacity))
	case ModeZoom:
		l.Preview = b
	default:
		l.List, l.Preview, l.Stacked = split(b, n)
	}
	return l
}

// split divides the body between the list and the preview.
func split(b Rect, n int) (list, preview Rect, stacked bool) {
	if b.W < SideBySide {
		// The list's height is its column header plus one row per
		// session, at most a third of the body, at least 3 rows.
		lh := max(3, min(b.H/3, n+1))
		list = Rect{b.X, b.Y, b.W, lh}
		preview = Rect{b.X, b.Y + lh, b.W, b.H - lh}
		return list, preview, true
	}
	// Wide enough for name, state and the title (the needs-input
	// reason) side by side; from Wide on, room for the time in state and
	// more.
	lw := max(40, b.W*35/100)
	if b.W >= Wide {
		lw = min(72, b.W*40/100)
	}
	list = Rect{b.X, b.Y, lw, b.H}
	preview = Rect{b.X + lw, b.Y, b.W - lw, b.H}
	return list, preview, false
}

// GridCapacity is how many panes of at least MinPaneW×MinPaneH fit in body.
func GridCapacity(body Rect) int {
	if body.Empty() {
		return 0
	}
	return (body.W / MinPaneW) * (body.H / MinPaneH)
}

// targetAspect is the width/height ratio (in cells) of an 80×24 terminal.
const targetAspect = 80.0 / 24.0

// GridRects tiles body with k panes (k ≤ GridCapacity(body); more are
// clamped). Rows hold either ⌊k/r⌋ or ⌈k/r⌉ panes (the fuller rows first),
// so the tiling has no holes; remainders of the division go one cell at a
// time to the first columns/rows. Among the row counts whose panes all
// meet the minimum size, the one whose panes are closest to an 80×24 shape
// (mean |log(aspect/target)|) wins; ties go to fewer rows.
func GridRects(body Rect, k int) []Rect {
	k = min(k, GridCapacity(body))
	if k <= 0 {
		return nil
	}
	bestRows, bestScore := 0, math.Inf(1)
	for r := 1; r <= k; r++ {
		h := body.H / r
		c := (k + r - 1) / r // panes in the fullest row
		if h < MinPaneH || body.W/c < MinPaneW {
			continue
		}
		score := 0.0
		for row := range r {
			cols := rowCount(k, r, row)
			rh := part(body.H, r, row)
			for col := range cols {
				pw := part(body.W, cols, col)
				score += math.Abs(math.Log(float64(pw) / float64(rh) / targetAspect))
			}
		}
		score /= float64(k)
		if score < bestScore-1e-9 {
			bestRows, bestScore = r, score
		}
	}
	if bestRows == 0 {
		return nil // unreachable while k ≤ capacity; kept for safety
	}
	rects := make([]Rect, 0, k)
	y := body.Y
	for row := range bestRows {
		rh := part(body.H, bestRows, row)
		cols := rowCount(k, bestRows, row)
		x := body.X
		for col := range cols {
			pw := part(body.W, cols, col)
			rects = append(rects, Rect{x, y, pw, rh})
			x += pw
		}
		y += rh
	}
	return rects
}

// rowCount is the number of panes in row i when k panes fill r rows.
func rowCount(k, r, i int) int {
	c := k / r
	if i < k%r {
		c++
	}
	return c
}

// part is the size of the i-th of n parts of total: the remainder goes one
// cell each to the first parts.
func part(total, n, i int) int {
	s := total / n
	if i < total%n {
		s++
	}
	return s
}

// GridPage returns the half-open range [start, end) of the n panes shown
// on the page holding the focused pane, capacity panes a page. With
// capacity ≤ 0 nothing is shown. For the last, partial page call Compute
// (or GridRects) with end-start panes so they fill the body.
func GridPage(n, focused, capacity int) (start, end int) {
	if n <= 0 || capacity <= 0 {
		return 0, 0
	}
	focused = max(0, min(focused, n-1))
	start = focused / capacity * capacity
	return start, min(n, start+capacity)
}
