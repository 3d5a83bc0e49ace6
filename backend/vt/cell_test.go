package vt

import (
	"fmt"
	"image/color"
	"runtime"
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

// A snapshot's blank rows are slices of the shared blank row of Cells,
// written and coloured rows are copies of their own, and a later write to
// the screen changes no snapshot taken before it.
func TestSnapshotSharesBlankRows(t *testing.T) {
	e := New(120, 35, Options{})
	e.Write([]byte("$ ls\r\n\x1b[44m\x1b[K\x1b[0m\r\n\x1b[2Jx"))
	// Every row is blank again after ED but row 2, where the cursor was.
	snap := e.Snapshot()
	isSharedCells := func(row []Cell) bool { return &row[0] == &(*blankCells.Load())[0] }
	var shared []int
	for y, row := range snap.Cells {
		if len(row) != 120 {
			t.Fatalf("row %d has %d cells", y, len(row))
		}
		if !isSharedCells(row) {
			shared = append(shared, y)
		}
	}
	if fmt.Sprint(shared) != "[2]" {
		t.Fatalf("rows with cells of their own: %v, want [2]", shared)
	}
	if got := snap.Lines()[2]; got != "x" {
		t.Fatalf("row 2 = %q", got)
	}
	e.Write([]byte("\x1b[1;1H\x1b[41mred\x1b[0m"))
	if got := snap.Lines()[0]; got != "" {
		t.Fatalf("an earlier snapshot changed with the screen: row 0 = %q", got)
	}
	later := e.Snapshot()
	if isSharedCells(later.Cells[0]) || later.Lines()[0] != "red" || later.Cells[0][0].Style.Bg == nil {
		t.Fatalf("row 0 after writing: shared %v, %q, %+v", isSharedCells(later.Cells[0]), later.Lines()[0], later.Cells[0][0])
	}
	wide := New(300, 5, Options{}).Snapshot()
	if len(wide.Cells[4]) != 300 || !isSharedCells(wide.Cells[4]) || !isSharedCells(New(80, 5, Options{}).Snapshot().Cells[0]) {
		t.Fatal("a wider screen's blank rows are not slices of the shared row")
	}
	if len(snap.Cells[0]) != 120 || snap.Cells[0][119] != EmptyCell {
		t.Fatal("a snapshot's blank row changed when the shared row grew")
	}
	for _, c := range *blankCells.Load() {
		if c != EmptyCell {
			t.Fatalf("the shared blank row of Cells was written: %+v", c)
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

// SnapshotInto gives what Snapshot gives, in the memory of the snapshot it
// is handed (no allocation once that one is large enough, whichever screen
// it came from), and never writes the shared blank row.
func TestSnapshotIntoReusesMemory(t *testing.T) {
	e := New(76, 31, Options{})
	fill := func(seed int) {
		for y := range 20 {
			fmt.Fprintf(e, "\x1b[%d;1H\x1b[3%dm%s\x1b[0m", y+1, (y+seed)%8, strings.Repeat(string(rune('a'+(y+seed)%26)), 76))
		}
	}
	fill(0)
	spare := New(80, 24, Options{}).Snapshot() // all blank: no cells of its own
	fill(1)
	got := e.SnapshotInto(spare)
	if got != spare || fmt.Sprint(got.Lines()) != fmt.Sprint(e.Snapshot().Lines()) || got.Cols != 76 || got.Rows != 31 {
		t.Fatalf("SnapshotInto: same %v, %dx%d, lines %q", got == spare, got.Cols, got.Rows, got.Lines())
	}
	fill(2)
	if allocs := testing.AllocsPerRun(20, func() { got = e.SnapshotInto(got) }); allocs != 0 {
		t.Fatalf("SnapshotInto into a large enough snapshot allocated %v times", allocs)
	}
	if got.Cells[0][0].Style.Fg == nil || got.Lines()[0] != strings.Repeat("c", 76) || got.Lines()[25] != "" {
		t.Fatalf("reused snapshot: %q, %q, %+v", got.Lines()[0], got.Lines()[25], got.Cells[0][0])
	}
	for _, c := range *blankCells.Load() {
		if c != EmptyCell {
			t.Fatalf("the shared blank row of Cells was written: %+v", c)
		}
	}
}

// BenchmarkSnapshotInto copies a full 76×31 screen of text: into a fresh
// snapshot (Snapshot) and into the memory of the last one (SnapshotInto,
// what the dashboard does for each pane of a flooding grid).
func BenchmarkSnapshotInto(b *testing.B) {
	e := New(76, 31, Options{})
	for y := range 31 {
		fmt.Fprintf(e, "\x1b[%d;1H%s", y+1, strings.Repeat(string(rune('A'+y%26)), 76))
	}
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			_ = e.Snapshot()
		}
	})
	b.Run("into", func(b *testing.B) {
		b.ReportAllocs()
		s := e.Snapshot()
		for range b.N {
			s = e.SnapshotInto(s)
		}
	})
}

// An emulator costs what its screen needs: New allocates no 64 KiB parser
// payload buffer (the parser's default) only to replace it.
func TestNewAllocatesLittle(t *testing.T) {
	const n = 50
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		New(120, 35, Options{})
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 32<<10 {
		t.Fatalf("New(120, 35) allocated %d bytes, want under 32 KiB", per)
	}
}

// The colour types' RGBA is xterm's default palette: the 16 ANSI colours,
// the 6×6×6 cube and the greys.
func TestColorRGBA(t *testing.T) {
	rgb := func(c color.Color) [3]uint32 {
		r, g, b, _ := c.RGBA()
		return [3]uint32{r >> 8, g >> 8, b >> 8}
	}
	for _, tt := range []struct {
		c    color.Color
		want [3]uint32
	}{
		{BasicColor(1), [3]uint32{0xcd, 0, 0}},
		{BasicColor(9), [3]uint32{0xff, 0, 0}},
		{IndexedColor(12), [3]uint32{0x5c, 0x5c, 0xff}},
		{IndexedColor(16), [3]uint32{0, 0, 0}},
		{IndexedColor(196), [3]uint32{0xff, 0, 0}},
		{IndexedColor(110), [3]uint32{0x87, 0xaf, 0xd7}},
		{IndexedColor(232), [3]uint32{8, 8, 8}},
		{IndexedColor(255), [3]uint32{0xee, 0xee, 0xee}},
	} {
		if got := rgb(tt.c); got != tt.want {
			t.Errorf("%T(%d): %x, want %x", tt.c, tt.c, got, tt.want)
		}
	}
	if !(&Style{Fg: BasicColor(1)}).Equal(&Style{Fg: IndexedColor(1)}) {
		t.Error("basic and indexed red differ: Equal compares colours of different types by RGBA")
	}
}
