package vt

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fullState is state (skip_test.go) and the tab stops: everything about an
// emulator a later byte or a reader can observe, but its scrollback.
func fullState(e *Emulator) string {
	s := state(e)
	e.mu.Lock()
	defer e.mu.Unlock()
	return fmt.Sprintf("%s shown=%v tabs=%v", s, e.cursorShown, e.tabs)
}

// repainted returns a fresh emulator of a's size with a's repaint written
// to it, and whether the repaint is exact. The fresh emulator fails t if
// the repaint makes it answer anything.
func repainted(t testing.TB, a *Emulator) (*Emulator, bool) {
	t.Helper()
	rp, exact := a.repaint()
	writing := true // later writes (the stream) may query
	b := New(a.cols, a.rows, Options{Reply: func(p []byte) {
		if writing {
			t.Errorf("the repaint made a reply %q", p)
		}
	}})
	b.Write(rp)
	writing = false
	if !sameScreen(a, b) {
		t.Fatalf("repainted screen differs (exact=%v):\nwant %s\ngot  %s\nrepaint %q", exact, a.Snapshot().Text(), b.Snapshot().Text(), rp)
	}
	return b, exact
}

// sameEmulators fails t unless a and b are equivalent: equal full state
// (which includes all a Snapshot holds but Seq).
func sameEmulators(t testing.TB, what string, a, b *Emulator) {
	t.Helper()
	if sameState(a, b) {
		return
	}
	sa, sb := a.Snapshot(), b.Snapshot()
	if !reflect.DeepEqual(sa.Cells, sb.Cells) {
		t.Fatalf("%s: screens differ:\nwant %s\ngot  %s", what, sa.Text(), sb.Text())
	}
	t.Fatalf("%s: states differ:\nwant %s\ngot  %s", what, fullState(a), fullState(b))
}

// sameScreen reports whether a and b show the same cells.
func sameScreen(a, b *Emulator) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.EqualFunc(a.cellLines(a.scr), b.cellLines(b.scr), slices.Equal)
}

// cellLines is s's cells as Cells: two emulators number their pens
// differently, so their cells compare resolved.
func (e *Emulator) cellLines(s *screen) [][]Cell {
	out := make([][]Cell, len(s.lines))
	for y, l := range s.lines {
		for x := range l {
			out[y] = append(out[y], e.cellOf(&l[x]))
		}
	}
	return out
}

// sameState is fullState(a) == fullState(b), without formatting.
func sameState(a, b *Emulator) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	screens := func(s, z *screen) bool {
		if s == nil || z == nil {
			return s == z
		}
		return s.saved == z.saved && slices.EqualFunc(a.cellLines(s), b.cellLines(z), slices.Equal)
	}
	return screens(a.main, b.main) && screens(a.alt, b.alt) && (a.scr == a.alt) == (b.scr == b.alt) &&
		a.x == b.x && a.y == b.y && a.wrapNext == b.wrapNext && a.style == b.style && a.link == b.link &&
		a.lastContent == b.lastContent && a.lastWidth == b.lastWidth && a.modes == b.modes &&
		a.cursorShown == b.cursorShown && a.top == b.top && a.bottom == b.bottom &&
		a.charsets == b.charsets && a.gl == b.gl && a.title == b.title && slices.Equal(a.tabs, b.tabs)
}

// follower is an emulator made from a repaint, fed what its source is fed
// afterwards.
type follower struct {
	e  *Emulator
	at int // where in the stream the repaint was taken
}

// replayWithFollowers feeds in to a cols x rows emulator in pieces cut at
// the given points; at each point where the parser is settled it starts a
// follower from a repaint, and it checks that every exact follower is
// equivalent to the source right away, after the next piece and at the
// end. resize, if not nil,
// may resize the source (and so the followers) between pieces. It returns
// how many repaints were taken and how many were exact.
func replayWithFollowers(t *testing.T, name string, cols, rows int, in []byte, cuts []int, resize func(k int) (int, int, bool)) (taken, exact int) {
	t.Helper()
	a := New(cols, rows, Options{})
	var fs []follower
	prev := 0
	for _, k := range append(cuts, len(in)) {
		k = min(max(k, prev), len(in))
		a.Write(in[prev:k])
		for _, f := range fs {
			f.e.Write(in[prev:k])
			if f.at == prev || k == len(in) {
				sameEmulators(t, fmt.Sprintf("%s: repainted at %d, checked at %d", name, f.at, k), a, f.e)
			}
		}
		prev = k
		if resize != nil {
			if c, r, ok := resize(k); ok {
				a.Resize(c, r)
				for _, f := range fs {
					f.e.Resize(c, r)
				}
			}
		}
		if k == len(in) || !a.Settled() {
			continue
		}
		b, ok := repainted(t, a)
		taken++
		if !ok && promisedExact(a) {
			t.Fatalf("%s at %d: an inexact repaint with the main screen active and no alternate screen", name, k)
		}
		if !ok {
			continue
		}
		exact++
		sameEmulators(t, fmt.Sprintf("%s: just repainted at %d", name, k), a, b)
		if rp := b.Repaint(); !bytes.Equal(rp, a.Repaint()) {
			t.Fatalf("%s at %d: the repaint of a repainted emulator differs", name, k)
		}
		fs = append(fs, follower{b, k})
	}
	return taken, exact
}

// promisedExact reports whether Repaint promises an exact result for a
// (settled): the main screen active, no alternate screen, and REP's
// character printable (not wide on a 1-column screen, not left unset by
// DECALN).
func promisedExact(a *Emulator) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.alt == nil && a.lastWidth > 0 && a.lastWidth <= a.cols && (a.settled() || !a.unsettledLost)
}

// cutsEvery returns the cut points 0, step, 2*step, ... below n.
func cutsEvery(n, step int) []int {
	var cs []int
	for k := 0; k < n; k += step {
		cs = append(cs, k)
	}
	return cs
}

// The recordings of real programs (vim, less, top, a bubbletea app, ...),
// repainted every few bytes: from each repaint on, a follower stays
// equivalent to the emulator that saw the whole stream.
func TestRepaintRecordings(t *testing.T) {
	recs, _ := filepath.Glob("testdata/*.rec")
	if len(recs) == 0 {
		t.Fatal("no testdata/*.rec recordings")
	}
	for _, rec := range recs {
		data, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(rec)
		taken, exact := replayWithFollowers(t, name, recCols, recRows, data, cutsEvery(len(data), 1+len(data)/150), nil)
		if taken < 20 || exact != taken {
			t.Errorf("%s: %d repaints taken, %d exact", name, taken, exact)
		}
	}
}

// stateful returns n bytes of output that exercise every piece of state a
// repaint reproduces: text of every width, SGR of every kind, hyperlinks,
// cursor moves, scroll regions, origin mode, autowrap, insert mode, both
// screens by every mode, saved cursors, charsets, tab stops, REP, titles,
// erasures, DECSTR, and now and then a query (which repaints never hold).
func stateful(r *rand.Rand, n int) []byte {
	text := []string{
		"x", "hello", "0123456789", " ", "  ", "中", "文字", "😀", "e\u0301", "\u00e9", "─", "✳",
		"\r\n", "\r\n", "\n", "\r", "\t", "\b", "\v",
	}
	fixed := []string{
		"\x1b[?47h", "\x1b[?47l", "\x1b[?1047h", "\x1b[?1047l", "\x1b[?1049h", "\x1b[?1049l",
		"\x1b[?1048h", "\x1b[?1048l", "\x1b7", "\x1b8", "\x1b[s", "\x1b[u", "\x1b[?6h", "\x1b[?6l",
		"\x1b[?7h", "\x1b[?7l", "\x1b[4h", "\x1b[4l", "\x1b[?25l", "\x1b[?25h", "\x1b[?1h", "\x1b[?1000h",
		"\x1b[?1002h", "\x1b[?1003h", "\x1b[?1006h", "\x1b[?1004h", "\x1b[?2004h", "\x1b[?2026h",
		"\x1b[?1;1000;2004l", "\x1b(0", "\x1b(B", "\x1b)0", "\x1b*0", "\x1b+0", "\x0e", "\x0f", "\x1bH",
		"\x1b[g", "\x1b[3g", "\x1b[2I", "\x1b[Z", "\x1b[3b", "\x1b[b", "\x1b[r", "\x1bM", "\x1bD", "\x1bE",
		"\x1b[J", "\x1b[1J", "\x1b[2J", "\x1b[K", "\x1b[1K", "\x1b[2K", "\x1b[3X", "\x1b[2@", "\x1b[2P",
		"\x1b[L", "\x1b[2M", "\x1b[S", "\x1b[2T", "\x1b[!p", "\x1b]8;;\x1b\\", "\x1b]8;id=1;http://a/b;c\x07",
		"\x1b]8;;https://example.com\x1b\\", "\x1b]0;a title\x07", "\x1b]2;✳ claude\x1b\\", "\x1b]2;\x07",
		"\x1b[c", "\x1b[6n", "\x1b]11;?\x07", "\x1b#8", "\x1bc",
	}
	var b []byte
	for len(b) < n {
		switch k := r.Intn(10); {
		case k < 5:
			b = append(b, text[r.Intn(len(text))]...)
		case k < 7:
			b = append(b, fixed[r.Intn(len(fixed))]...)
		case k < 9:
			b = appendRandomSGR(b, r)
		default:
			b = appendRandomMove(b, r)
		}
	}
	return b
}

// appendRandomSGR appends an SGR sequence with a few random parameters.
func appendRandomSGR(b []byte, r *rand.Rand) []byte {
	params := []string{
		"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "21", "22", "23", "24", "25", "27", "28", "29",
		"4:0", "4:1", "4:2", "4:3", "4:4", "4:5", "31", "42", "97", "104", "39", "49", "59",
		"38;5;12", "48;5;200", "58;5;3", "38;2;1;2;3", "48;2;250;128;0", "58;2;9;8;7",
		"38:2::10:20:30", "48:5:17", "58:2:1:2:3",
	}
	b = append(b, "\x1b["...)
	for i := range r.Intn(4) {
		if i > 0 {
			b = append(b, ';')
		}
		b = append(b, params[r.Intn(len(params))]...)
	}
	return append(b, 'm')
}

// appendRandomMove appends a cursor move or a scroll region with random
// (sometimes out of range) parameters.
func appendRandomMove(b []byte, r *rand.Rand) []byte {
	n := func() int { return r.Intn(14) }
	switch r.Intn(6) {
	case 0:
		return fmt.Appendf(b, "\x1b[%d;%dH", n(), n())
	case 1:
		return fmt.Appendf(b, "\x1b[%d;%dr", n(), n())
	case 2:
		return fmt.Appendf(b, "\x1b[%d%c", n(), "ABCDEFGd`ae"[r.Intn(11)])
	case 3:
		return fmt.Appendf(b, "\x1b[%dG", n())
	case 4:
		return fmt.Appendf(b, "\x1b[%d;%df", n(), n())
	}
	return fmt.Appendf(b, "\x1b[%dd", n())
}

// Random streams over every piece of state, on small screens (lines wrap,
// regions scroll, the margin is hit all the time), some resized, cut at
// random points: every exact follower stays equivalent to its source, and
// nearly every repaint is exact.
func TestRepaintRandom(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	taken, exact := 0, 0
	for round := range 600 {
		cols, rows := 1+r.Intn(12), 1+r.Intn(8)
		in := stateful(r, 300+r.Intn(3000))
		var cuts []int
		for range 1 + r.Intn(25) {
			cuts = append(cuts, r.Intn(len(in)))
		}
		slices.Sort(cuts)
		resize := func(int) (int, int, bool) {
			if r.Intn(8) != 0 {
				return 0, 0, false
			}
			return 1 + r.Intn(12), 1 + r.Intn(8), true
		}
		tk, ex := replayWithFollowers(t, fmt.Sprintf("round %d (%dx%d) %q", round, cols, rows, in), cols, rows, in, cuts, resize)
		taken += tk
		exact += ex
	}
	t.Logf("%d repaints, %d exact", taken, exact)
	if taken < 2000 || exact < taken*95/100 {
		t.Fatalf("%d repaints taken, only %d exact", taken, exact)
	}
}

// Named cases: each stream, repainted, then continued with bytes whose
// effect depends on the state the repaint must carry.
func TestRepaintCases(t *testing.T) {
	for _, c := range []struct {
		name         string
		cols, rows   int
		before, then string
		inexact      bool // a corner case Repaint documents
	}{
		{"leaving the alternate screen shows main and restores the cursor", 10, 4,
			"main\r\nscreen\x1b[2;3H\x1b[?1049h\x1b[31malt\x1b[3;5H", "\x1b[?1049lX", false},
		{"an alternate screen left with 47 keeps its content", 10, 3,
			"\x1b[?47hkept\x1b7\x1b[?47lmain", "\x1b[?47h\x1b8Y", false},
		{"a pending wrap after a wide character", 6, 2, "abcd中", "e", false},
		{"a pending wrap with autowrap off, restored", 5, 2, "abcde\x1b7\x1b[?7l\x1b8", "\x1b[K!", false},
		{"origin mode outside the region, restored", 8, 6, "\x1b[?6h\x1b[5;1Ho\x1b7\x1b[2;3r\x1b8", "\x1b[AX\x1b[HY", false},
		{"REP repeats the last character", 10, 2, "a中\x1b[H", "\x1b[2b", false},
		{"REP's character was erased", 10, 2, "ab\x1b[2J", "\x1b[3b", false},
		{"charsets and SO", 10, 2, "\x1b)0\x0e\x1b*0", "qx\x0fq", false},
		{"tab stops", 20, 2, "\x1b[3g\x1b[4G\x1bH\x1b[15G\x1bH\r", "\tA\tB", false},
		{"insert mode", 10, 2, "abc\x1b[4h\x1b[2G", "XY", false},
		{"scroll region", 5, 5, "1\r\n2\r\n3\r\n4\r\n5\x1b[2;4r\x1b[4;1H", "\n\nZ", false},
		{"pen: colours, underline styles, hyperlink", 30, 2,
			"\x1b[1;3;4:3;38;2;1;2;3;48;5;100;58;5;9m\x1b]8;id=x;http://h/\x1b\\u\x1b]8;;\x1b\\\x1b[0;97;104mv", "w\x1b]8;;http://z\x07z", false},
		{"title with a 0x9C inside UTF-8", 10, 2, "\x1b]0;✳ claude\x07", "\x1b]2;\x07", false},
		{"blank cells with a background", 10, 3, "\x1b[44m\x1b[2J\x1b[H\x1b[42mab\x1b[45m\x1b[5X", "\x1b[0mc\x1b[K", false},
		{"hidden cursor and input modes", 10, 2, "\x1b[?25l\x1b[?1;1000;1006;2004;2026h", "x", false},
		{"after DECSTR", 10, 3, "\x1b[2;3r\x1b[?6h\x1b[4h\x1b[!p", "\x1b[3;1Hx\x1b8", false},
		// With an alternate screen no scratch slot is free: DECRC.
		{"alt: a pending wrap with autowrap off, restored", 5, 2, "\x1b[?1049habcde\x1b7\x1b[?7l\x1b8", "\x1b[K!", false},
		{"alt: origin mode outside the region, restored", 8, 6, "\x1b[?1049h\x1b[?6h\x1b[5;1Ho\x1b7\x1b[2;3r\x1b8", "\x1b[AX\x1b[HY", false},
		{"alt: REP's character shown elsewhere", 10, 2, "\x1b[?1049hab\x1b[Hx", "\x1b[2b", false},
		{"alt: REP's character on a blank", 3, 1, "\x1b[?1049habc\x1b[2K\x1b[44m\x1b[2X", "\x1b[2b", false},
		{"alt: origin mode outside the region, moved", 8, 6, "\x1b[?1049h\x1b[?6h\x1b[5;1H\x1b7\x1b[2;3r\x1b8\x1b[B", "X", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := New(c.cols, c.rows, Options{})
			a.Write([]byte(c.before))
			b, exact := repainted(t, a)
			if exact == c.inexact {
				t.Fatalf("exact = %v", exact)
			}
			if exact {
				sameEmulators(t, "repainted", a, b)
			}
			a.Write([]byte(c.then))
			b.Write([]byte(c.then))
			if exact {
				sameEmulators(t, "continued", a, b)
			}
		})
	}
}

// A repaint written to an emulator of the same size that is not fresh
// (other screens, modes, title) makes it the same: it begins with RIS.
func TestRepaintOverUsedEmulator(t *testing.T) {
	a := New(12, 4, Options{})
	a.Write([]byte("\x1b]2;a\x07hello\r\n\x1b[1mworld"))
	b := New(12, 4, Options{})
	b.Write([]byte("\x1b[?1049h\x1b[5;2r\x1b[?6h\x1b(0\x1b[4h\x1b[3gjunk\x1b]2;b\x07\x1b[?25l\x1b[?2004h\x1b[41m"))
	b.Write(a.Repaint())
	sameEmulators(t, "over a used emulator", a, b)
}

// The DEC special graphics a program draws with are printed back as the
// Unicode they became, each one column wide.
func TestRepaintDECGraphics(t *testing.T) {
	var in []byte
	in = append(in, "\x1b(0"...)
	for c := byte(0x5f); c <= 0x7e; c++ {
		in = append(in, c)
	}
	a := New(40, 2, Options{})
	a.Write(in)
	b, _ := repainted(t, a)
	sameEmulators(t, "DEC graphics", a, b)
}

// Settled is false inside a CSI, a UTF-8 character, an OSC string (also
// at its ESC of ST) and a DCS string, and true between them.
func TestSettled(t *testing.T) {
	e := New(10, 2, Options{})
	for _, step := range []struct {
		in      string
		settled bool
	}{
		{"plain", true}, {"\x1b", false}, {"[3", false}, {"1m", true},
		{"\xe4", false}, {"\xb8", false}, {"\xad", true},
		{"\x1b]0;ti", false}, {"tle\x1b", false}, {"\\", true},
		{"\x1bP$q", false}, {"m\x1b\\", true},
	} {
		e.Write([]byte(step.in))
		if got := e.Settled(); got != step.settled {
			t.Fatalf("after %q: Settled() = %v", step.in, got)
		}
	}
	if _, exact := e.repaint(); !exact {
		t.Fatal("settled, yet the repaint is not exact")
	}
	// Mid-sequence, the repaint carries the sequence's first bytes: the
	// rest is read alike. Beyond maxUnsettled it cannot.
	e.Write([]byte("\x1b[3"))
	if _, exact := e.repaint(); !exact {
		t.Fatal("a repaint mid-sequence is not exact")
	}
	e.Write([]byte("1m\x1b]0;" + strings.Repeat("t", maxUnsettled)))
	if _, exact := e.repaint(); exact {
		t.Fatal("a repaint inside an OSC longer than maxUnsettled claims to be exact")
	}
}

// A repaint taken in the middle of a sequence (the stream paused there:
// Feeder.settle forced) makes a fresh emulator read the sequence's rest
// as the source does, for every kind of sequence, cut at every byte and
// spread over several writes.
func TestRepaintMidSequence(t *testing.T) {
	for _, seq := range []string{"\x1b[38;2;10;200;30mX", "\x1b]0;a title\x07Y", "中Z", "\x1b]8;;http://x\x1b\\L\x1b]8;;\x1b\\",
		"\x1bP$qm\x1b\\W", "\x1b(0qq\x1b(BV", "\x1b[?1049hA\x1b[?1049lB"} {
		for k := 1; k < len(seq); k++ {
			a := New(20, 4, Options{})
			a.Write([]byte("ab"))
			for _, c := range []byte(seq[:k]) { // a byte a write
				a.Write([]byte{c})
			}
			b, _ := repainted(t, a)
			a.Write([]byte(seq[k:] + "end"))
			b.Write([]byte(seq[k:] + "end"))
			sameEmulators(t, fmt.Sprintf("%q cut at %d", seq, k), a, b)
		}
	}
}

// FuzzRepaint: any stream, cut anywhere (mid-sequence too) and repainted;
// the follower matches its source after the rest, whenever the repaint is
// exact, and always on the screen right after the repaint.
func FuzzRepaint(f *testing.F) {
	f.Add([]byte("hello\r\n\x1b[1;31mworld\x1b[?1049h\x1b[2;3Halt"), uint8(10), uint8(4), uint16(20))
	f.Add([]byte("abcd中\x1b7\x1b[?7l\x1b8\x1b[3b\x1b[?47h"), uint8(6), uint8(2), uint16(9))
	f.Add([]byte("\x1b[2;4r\x1b[?6h\x1b[4;1Hx\x1b(0q\x0e\x1b]8;;u\x07l\x1b[3g\x1bH"), uint8(8), uint8(6), uint16(30))
	f.Add([]byte("\x1b]0;✳ t\x07\x1b[44m\x1b[2J\x1b[4:3;58;2;1;2;3mz\x1b#8"), uint8(5), uint8(3), uint16(12))
	f.Fuzz(func(t *testing.T, in []byte, cols, rows uint8, cut uint16) {
		c, r := 1+int(cols%40), 1+int(rows%12)
		k := int(cut) % (len(in) + 1)
		a := New(c, r, Options{})
		a.Write(in[:k])
		b, exact := repainted(t, a)
		if !exact {
			if promisedExact(a) {
				t.Fatalf("inexact with the main screen active and no alternate screen")
			}
			return
		}
		sameEmulators(t, "repainted", a, b)
		a.Write(in[k:])
		b.Write(in[k:])
		sameEmulators(t, "continued", a, b)
	})
}

// BenchmarkRepaint measures a repaint of a full 120x35 screen of an
// agent's TUI: box drawing, colours (truecolour and 256), bold and dim
// runs, a background-coloured prompt line, wide characters.
func BenchmarkRepaint(b *testing.B) {
	const cols, rows = 120, 35
	e := New(cols, rows, Options{})
	var sb strings.Builder
	sb.WriteString("\x1b]0;✳ Claude Code\x07\x1b[H")
	for y := range rows {
		fmt.Fprintf(&sb, "\x1b[%d;1H", y+1)
		switch {
		case y == 0 || y == rows-3:
			sb.WriteString("\x1b[38;2;215;119;87m╭" + strings.Repeat("─", cols-2) + "╮\x1b[m")
		case y == rows-2:
			sb.WriteString("\x1b[48;5;236m\x1b[38;5;250m> write the tests first\x1b[K\x1b[m")
		case y == rows-1:
			sb.WriteString("\x1b[2m  ⏵⏵ accept edits on (shift+tab to cycle)\x1b[m")
		default:
			fmt.Fprintf(&sb, "\x1b[38;2;215;119;87m│\x1b[m \x1b[1m⏺\x1b[m Read(\x1b[38;5;%dmbackend/file%02d.go\x1b[m) 中文 %s\x1b[%dG\x1b[38;2;215;119;87m│\x1b[m",
				100+y, y, strings.Repeat("·", 40+y%20), cols)
		}
	}
	e.Write([]byte(sb.String()))
	n := len(e.Repaint())
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		e.Repaint()
	}
	b.ReportMetric(float64(n), "bytes/repaint")
}
