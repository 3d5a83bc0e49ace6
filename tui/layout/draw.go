package layout

import (
	"strconv"
	"strings"
)

// Draw renders l on a w×h screen as ASCII boxes, for tests and debugging:
// each rect is a +--+ box labelled with its name (grid panes by number);
// one-row rects (header, footer) are <-label-> bars. A TooSmall layout
// draws TooSmallNotice. Later rects overwrite earlier ones, so an overlap
// shows as a broken box.
func Draw(l Layout, w, h int) string {
	if l.TooSmall {
		return TooSmallNotice(w, h)
	}
	if w <= 0 || h <= 0 {
		return strings.Repeat("\n", max(h-1, 0))
	}
	c := make([][]byte, h)
	for y := range c {
		c[y] = []byte(strings.Repeat(" ", w))
	}
	set := func(x, y int, b byte) {
		if x >= 0 && x < w && y >= 0 && y < h {
			c[y][x] = b
		}
	}
	label := func(x, y, maxW int, s string) {
		for i := 0; i < len(s) && i < maxW; i++ {
			set(x+i, y, s[i])
		}
	}
	box := func(r Rect, name string) {
		if r.Empty() {
			return
		}
		switch {
		case r.H == 1:
			for x := r.X; x < r.X+r.W; x++ {
				set(x, r.Y, '-')
			}
			set(r.X, r.Y, '<')
			set(r.X+r.W-1, r.Y, '>')
			label(r.X+2, r.Y, r.W-4, name)
		case r.W == 1:
			for y := r.Y; y < r.Y+r.H; y++ {
				set(r.X, y, '|')
			}
		default:
			x1, y1 := r.X+r.W-1, r.Y+r.H-1
			for x := r.X; x <= x1; x++ {
				set(x, r.Y, '-')
				set(x, y1, '-')
			}
			for y := r.Y; y <= y1; y++ {
				set(r.X, y, '|')
				set(x1, y, '|')
			}
			for _, p := range [][2]int{{r.X, r.Y}, {x1, r.Y}, {r.X, y1}, {x1, y1}} {
				set(p[0], p[1], '+')
			}
			label(r.X+1, r.Y, r.W-2, name)
		}
	}
	box(l.Header, "header")
	box(l.Footer, "footer")
	box(l.List, "list")
	if l.List.Empty() {
		box(l.Preview, "zoom")
	} else {
		box(l.Preview, "preview")
	}
	for i, r := range l.Grid {
		box(r, strconv.Itoa(i+1))
	}
	lines := make([]string, h)
	for y := range c {
		lines[y] = string(c[y])
	}
	return strings.Join(lines, "\n")
}
