package vt

import (
	"fmt"
	"strings"
	"testing"
)

// Rows nobody wrote share the blank row; writing one gives it its own
// cells, erasing with the default background does not, and a resize keeps
// unwritten rows shared.
func TestUnwrittenRowsShareTheBlankRow(t *testing.T) {
	e := New(120, 35, Options{})
	shared := func() (n int) {
		for _, l := range e.main.lines {
			if isShared(l) {
				n++
			}
		}
		return n
	}
	if n := shared(); n != 35 {
		t.Fatalf("a new screen: %d of 35 rows shared", n)
	}
	e.Write([]byte("$ \x1b[2J\x1b[H$ "))
	if n := shared(); n != 34 {
		t.Fatalf("after a prompt and ED: %d rows shared, want 34", n)
	}
	e.Resize(100, 40)
	if n := shared(); n != 39 {
		t.Fatalf("after a resize: %d rows shared, want 39", n)
	}
	e.Write([]byte("\x1b[44m\x1b[5;1H\x1b[K"))
	if n := shared(); n != 38 {
		t.Fatalf("after erasing a row with a background: %d rows shared, want 38", n)
	}
	if got := e.Snapshot().Lines()[0]; got != "$" {
		t.Fatalf("row 0 = %q", got)
	}
	for _, c := range sharedBlank() {
		if c != emptyCell {
			t.Fatalf("the shared blank row was written: %+v", c)
		}
	}
}

// A program that prints each character in a colour of its own leaves the
// pen table bounded by what the screens show, and every cell keeps its
// colour across compactions.
func TestPenTableStaysBounded(t *testing.T) {
	const cols, rows = 20, 5
	e := New(cols, rows, Options{})
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%dm%c", i>>16&255, i>>8&255, i&255, 'a'+i%26)
	}
	e.Write([]byte(b.String()))
	if n, most := len(e.pens.list), max(minPenLimit, 2*(cols*rows+1))+1; n > most {
		t.Fatalf("pen table has %d pens, want at most %d", n, most)
	}
	// 20000 is a multiple of cols: the screen holds the last cols*rows
	// characters in reading order, the cursor on the last with a wrap
	// pending.
	s := e.Snapshot()
	last := 20000 - 1
	for y := range rows {
		for x := range cols {
			i := last - (cols*rows - 1) + y*cols + x
			c := s.Cells[y][x]
			r, g, bl, _ := c.Style.Fg.RGBA()
			got := int(r>>8)<<16 | int(g>>8)<<8 | int(bl>>8)
			if got != i&0xffffff || c.Content != string(rune('a'+i%26)) {
				t.Fatalf("cell %d,%d = %q colour %06x, want %q %06x", x, y, c.Content, got, string(rune('a'+i%26)), i)
			}
		}
	}
}
