package fleet

import (
	"fmt"
	"strings"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/vt"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// fullScreen is a 120x35 emulator every row of which has coloured text
// and wide characters.
func fullScreen() *vt.Emulator {
	e := vt.New(120, 35, vt.Options{})
	for y := range 35 {
		fmt.Fprintf(e, "\x1b[%d;1H\x1b[38;5;%dm⏺ Read(backend/file%02d.go)\x1b[m 中文 \x1b[1m%s\x1b[m", y+1, 100+y, y, strings.Repeat("·", 40+y%20))
	}
	return e
}

// A PAINT drawn in the dashboard shows the supervisor's screen, with its
// number as the snapshot's Seq, into the memory of the last one.
func TestPaintingDraws(t *testing.T) {
	e := fullScreen()
	p := e.Painting()
	pt := painting{h: frame.PaintHeader{Cols: uint16(p.Cols), Rows: uint16(p.Rows), Seq: 42}, b: p.Bytes}
	var dst *vt.Snapshot
	for range 2 { // the second into the first's memory, on a used emulator
		dst = pt.draw(dst)
		if got, want := dst.Text(), e.Snapshot().Text(); got != want || dst.Seq != 42 || dst.Cols != 120 {
			t.Fatalf("drawn %dx%d seq %d:\n%s\nwant:\n%s", dst.Cols, dst.Rows, dst.Seq, got, want)
		}
	}
	small := vt.New(20, 3, vt.Options{})
	small.Write([]byte("\x1b]0;t\x07hi"))
	sp := small.Painting()
	s := painting{h: frame.PaintHeader{Cols: 20, Rows: 3}, b: sp.Bytes}.draw(dst)
	if s.Text() != "hi" || s.Title != "t" || s.Cols != 20 || s.Rows != 3 {
		t.Fatalf("a smaller screen on the same emulator: %dx%d %q %q", s.Cols, s.Rows, s.Title, s.Text())
	}
}

// BenchmarkPaintDraw is what a pane's pull costs the dashboard: drawing a
// full 120x35 screen's PAINT into the last snapshot's memory.
func BenchmarkPaintDraw(b *testing.B) {
	p := fullScreen().Painting()
	pt := painting{h: frame.PaintHeader{Cols: uint16(p.Cols), Rows: uint16(p.Rows)}, b: p.Bytes}
	dst := pt.draw(nil)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		dst = pt.draw(dst)
	}
	b.ReportMetric(float64(len(p.Bytes)), "bytes/paint")
}
