package vt

import (
	"image/color"
	"reflect"
	"strings"
	"testing"
)

// feed returns a cols x rows emulator after writing in.
func feed(cols, rows int, in string) *Emulator {
	e := New(cols, rows, Options{})
	e.Write([]byte(in))
	return e
}

func TestScreenText(t *testing.T) {
	tests := []struct {
		name       string
		cols, rows int
		in         string
		want       []string // Lines(), trailing "" rows omitted
		cx, cy     int
	}{
		{"plain", 10, 3, "hello", []string{"hello"}, 5, 0},
		{"crlf", 10, 3, "ab\r\ncd", []string{"ab", "cd"}, 2, 1},
		{"lf keeps column", 10, 3, "ab\ncd", []string{"ab", "  cd"}, 4, 1},
		{"backspace", 10, 3, "abc\bX", []string{"abX"}, 3, 0},
		{"backspace at 0", 10, 3, "\bX", []string{"X"}, 1, 0},
		{"tab", 20, 3, "a\tb", []string{"a       b"}, 9, 0},
		{"tab clamps", 10, 3, "a\t\t\tb", []string{"a        b"}, 9, 0},
		{"hts tbc", 20, 3, "\x1b[3g\x1b[3G\x1bH\r\tX", []string{"  X"}, 3, 0},
		{"tbc single", 20, 3, "\x1b[9G\x1b[g\rx\ty", []string{"x               y"}, 17, 0},
		{"cbt", 20, 3, "\x1b[12G\x1b[Zx", []string{"        x"}, 9, 0},
		{"bel ignored", 10, 3, "a\ab", []string{"ab"}, 2, 0},
		{"pending wrap", 5, 3, "abcde", []string{"abcde"}, 4, 0},
		{"wrap", 5, 3, "abcdef", []string{"abcde", "f"}, 1, 1},
		{"pending wrap cleared by CR", 5, 3, "abcde\rX", []string{"Xbcde"}, 1, 0},
		{"no autowrap", 5, 3, "\x1b[?7labcdefg", []string{"abcdg"}, 4, 0},
		{"scroll", 5, 2, "a\r\nb\r\nc", []string{"b", "c"}, 1, 1},
		{"cup", 10, 5, "\x1b[2;3HX", []string{"", "  X"}, 3, 1},
		{"cup default", 10, 5, "ab\x1b[HX", []string{"Xb"}, 1, 0},
		{"hvp clamps", 5, 3, "\x1b[99;99fX", []string{"", "", "    X"}, 4, 2},
		{"cuu cud cuf cub", 10, 5, "\x1b[3;3H\x1b[AX\x1b[2BY\x1b[2CZ\x1b[4DW", []string{"", "  X", "", "   W  Z"}, 4, 3},
		{"cnl cpl", 10, 5, "ab\x1b[2Ex\x1b[Fy", []string{"ab", "y", "x"}, 1, 1},
		{"cha vpa hpa", 10, 5, "\x1b[5GA\x1b[3dB\x1b[2`C", []string{"    A", "", " C   B"}, 2, 2},
		{"hpr vpr", 10, 5, "\x1b[2aA\x1b[eB", []string{"  A", "   B"}, 4, 1},
		{"el0", 10, 3, "abcdef\x1b[3G\x1b[K", []string{"ab"}, 2, 0},
		{"el1", 10, 3, "abcdef\x1b[3G\x1b[1K", []string{"   def"}, 2, 0},
		{"el2", 10, 3, "abcdef\x1b[2K", nil, 6, 0},
		{"ed0", 5, 3, "aaa\r\nbbb\r\nccc\x1b[2;2H\x1b[J", []string{"aaa", "b"}, 1, 1},
		{"ed1", 5, 3, "aaa\r\nbbb\r\nccc\x1b[2;2H\x1b[1J", []string{"", "  b", "ccc"}, 1, 1},
		{"ed2", 5, 3, "aaa\r\nbbb\x1b[2J", nil, 3, 1},
		{"ech", 10, 3, "abcdef\x1b[2G\x1b[3X", []string{"a   ef"}, 1, 0},
		{"ich", 10, 3, "abcdef\x1b[2G\x1b[2@", []string{"a  bcdef"}, 1, 0},
		{"ich truncates", 6, 3, "abcdef\x1b[2G\x1b[2@", []string{"a  bcd"}, 1, 0},
		{"dch", 10, 3, "abcdef\x1b[2G\x1b[2P", []string{"adef"}, 1, 0},
		{"il", 5, 4, "a\r\nb\r\nc\x1b[2H\x1b[L", []string{"a", "", "b", "c"}, 0, 1},
		{"dl", 5, 4, "a\r\nb\r\nc\x1b[1H\x1b[M", []string{"b", "c"}, 0, 0},
		{"decstbm lf", 5, 4, "1\r\n2\r\n3\r\n4\x1b[2;3r\x1b[3H\nX", []string{"1", "3", "X", "4"}, 1, 2},
		{"decstbm ri", 5, 4, "1\r\n2\r\n3\r\n4\x1b[2;3r\x1b[2H\x1bMX", []string{"1", "X", "2", "4"}, 1, 1},
		{"ind nel", 5, 3, "ab\x1bDc\x1bEd", []string{"ab", "  c", "d"}, 1, 2},
		{"ri top scrolls", 5, 3, "a\x1bMb", []string{" b", "a"}, 2, 0},
		{"su sd", 5, 3, "1\r\n2\r\n3\x1b[S", []string{"2", "3"}, 1, 2},
		{"sd", 5, 3, "1\r\n2\r\n3\x1b[2T", []string{"", "", "1"}, 1, 2},
		{"il in region only", 5, 4, "1\r\n2\r\n3\r\n4\x1b[1;2r\x1b[4H\x1b[L", []string{"1", "2", "3", "4"}, 0, 3},
		{"decsc decrc", 10, 3, "ab\x1b7\x1b[3;5Hx\x1b8Y", []string{"abY", "", "    x"}, 3, 0},
		{"scosc scorc", 10, 3, "ab\x1b[s\x1b[3;5Hx\x1b[uY", []string{"abY", "", "    x"}, 3, 0},
		{"origin mode", 10, 5, "\x1b[2;4r\x1b[?6h\x1b[1;1HA\x1b[9;1HB", []string{"", "A", "", "B"}, 1, 3},
		{"irm", 10, 3, "abc\x1b[2G\x1b[4hXY\x1b[4lZ", []string{"aXYZc"}, 4, 0},
		{"rep", 10, 3, "ab\x1b[3b", []string{"abbbb"}, 5, 0},
		{"rep wide", 10, 3, "中\x1b[2b", []string{"中中中"}, 6, 0},
		{"dec graphics", 10, 3, "\x1b(0lqk\x1b(Bq", []string{"┌─┐q"}, 4, 0},
		{"dec graphics SO", 10, 3, "\x1b)0a\x0eq\x0fq", []string{"a─q"}, 3, 0},
		{"ris", 10, 3, "abc\x1b[2;5r\x1bcX", []string{"X"}, 1, 0},
		{"decaln", 3, 2, "\x1b#8", []string{"EEE", "EEE"}, 0, 0},
		{"wide", 10, 3, "a中b", []string{"a中b"}, 4, 0},
		{"emoji", 10, 3, "😀x", []string{"😀x"}, 3, 0},
		{"wide wraps at margin", 5, 3, "abcd中", []string{"abcd", "中"}, 2, 1},
		{"overwrite wide head", 10, 3, "中\rx", []string{"x"}, 1, 0},
		{"overwrite wide tail", 10, 3, "中\x1b[2Gx", []string{" x"}, 2, 0},
		{"combining", 10, 3, "e\u0301x", []string{"e\u0301x"}, 2, 0},
		{"combining at pending wrap", 3, 3, "abc\u0301", []string{"abc\u0301"}, 2, 0},
		{"split utf8 ok", 10, 3, "\xe4\xb8\xad", []string{"中"}, 2, 0},
		{"unknown seqs ignored", 10, 3, "a\x1b[?1234hb\x1b]9;x\x07c\x1bP1$r\x1b\\d", []string{"abcd"}, 4, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := feed(tt.cols, tt.rows, tt.in).Snapshot()
			got := s.Lines()
			for len(got) > 0 && got[len(got)-1] == "" {
				got = got[:len(got)-1]
			}
			if len(got) == 0 {
				got = nil
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("lines = %q, want %q", got, tt.want)
			}
			if s.Cursor.X != tt.cx || s.Cursor.Y != tt.cy {
				t.Errorf("cursor = %d,%d, want %d,%d", s.Cursor.X, s.Cursor.Y, tt.cx, tt.cy)
			}
			checkShape(t, s)
		})
	}
}

// checkShape verifies the Snapshot invariants: Rows rows of Cols cells and
// every wide head followed by its continuation.
func checkShape(t *testing.T, s *Snapshot) {
	t.Helper()
	if len(s.Cells) != s.Rows {
		t.Fatalf("%d rows, want %d", len(s.Cells), s.Rows)
	}
	for y, row := range s.Cells {
		if len(row) != s.Cols {
			t.Fatalf("row %d has %d cells, want %d", y, len(row), s.Cols)
		}
		for x, c := range row {
			if c.Width == 2 && (x+1 >= len(row) || row[x+1].Width != 0) {
				t.Fatalf("row %d col %d: wide cell without continuation", y, x)
			}
			if c.Width == 0 && (x == 0 || row[x-1].Width != 2) {
				t.Fatalf("row %d col %d: orphan continuation", y, x)
			}
		}
	}
	if s.Cursor.X < 0 || s.Cursor.X >= s.Cols || s.Cursor.Y < 0 || s.Cursor.Y >= s.Rows {
		t.Fatalf("cursor %v outside %dx%d", s.Cursor, s.Cols, s.Rows)
	}
}

func TestWideCells(t *testing.T) {
	s := feed(6, 1, "中").Snapshot()
	if c := s.Cells[0][0]; c.Content != "中" || c.Width != 2 {
		t.Errorf("head = %+v", c)
	}
	if c := s.Cells[0][1]; c.Content != "" || c.Width != 0 {
		t.Errorf("continuation = %+v", c)
	}
	if c := s.Cells[0][2]; c != EmptyCell {
		t.Errorf("after = %+v, want EmptyCell", c)
	}
}

func TestSGR(t *testing.T) {
	rgb := func(r, g, b uint8) color.Color { return color.RGBA{r, g, b, 0xff} }
	tests := []struct {
		name string
		in   string
		want Style
	}{
		{"bold", "\x1b[1m", Style{Attrs: AttrBold}},
		{"all attrs", "\x1b[1;2;3;5;7;8;9m", Style{Attrs: AttrBold | AttrFaint | AttrItalic | AttrBlink | AttrReverse | AttrConceal | AttrStrikethrough}},
		{"resets", "\x1b[1;2;3;4;5;7;8;9;31;41m\x1b[22;23;24;25;27;28;29;39;49m", Style{}},
		{"reset 0", "\x1b[1;31m\x1b[0m", Style{}},
		{"reset empty", "\x1b[1;31m\x1b[m", Style{}},
		{"underline", "\x1b[4m", Style{Underline: UnderlineSingle}},
		{"underline curly", "\x1b[4:3m", Style{Underline: UnderlineCurly}},
		{"underline 4:0", "\x1b[4m\x1b[4:0m", Style{}},
		{"double underline 21", "\x1b[21m", Style{Underline: UnderlineDouble}},
		{"basic fg bg", "\x1b[31;42m", Style{Fg: BasicColor(1), Bg: BasicColor(2)}},
		{"bright", "\x1b[91;102m", Style{Fg: BasicColor(9), Bg: BasicColor(10)}},
		{"256", "\x1b[38;5;196;48;5;21m", Style{Fg: IndexedColor(196), Bg: IndexedColor(21)}},
		{"256 colon", "\x1b[38:5:196m", Style{Fg: IndexedColor(196)}},
		{"truecolor", "\x1b[38;2;1;2;3;48;2;4;5;6m", Style{Fg: rgb(1, 2, 3), Bg: rgb(4, 5, 6)}},
		{"truecolor colon cs", "\x1b[38:2::10:20:30m", Style{Fg: rgb(10, 20, 30)}},
		{"truecolor colon", "\x1b[48:2:10:20:30m", Style{Bg: rgb(10, 20, 30)}},
		{"truecolor then bold", "\x1b[38;2;1;2;3;1m", Style{Fg: rgb(1, 2, 3), Attrs: AttrBold}},
		{"underline colour", "\x1b[58;5;3m", Style{UnderlineColor: IndexedColor(3)}},
		{"underline colour reset", "\x1b[58;5;3m\x1b[59m", Style{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := feed(5, 1, tt.in+"x").Snapshot()
			got := s.Cells[0][0].Style
			if !got.Equal(&tt.want) {
				t.Errorf("style = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestBackgroundColorErase(t *testing.T) {
	s := feed(4, 1, "ab\x1b[44m\x1b[K").Snapshot()
	if s.Cells[0][3].Style.Bg != BasicColor(4) {
		t.Errorf("erased cell bg = %v, want blue", s.Cells[0][3].Style.Bg)
	}
}

func TestANSI(t *testing.T) {
	s := feed(20, 2, "a\x1b[1;31mbc\x1b[0md\r\n\x1b[38;5;100mx\x1b[m").Snapshot()
	want := "a\x1b[1;31mbc\x1b[0md\n\x1b[38;5;100mx\x1b[0m"
	if got := s.ANSI(); got != want {
		t.Errorf("ANSI() = %q, want %q", got, want)
	}
}

func TestTextAndLines(t *testing.T) {
	s := feed(10, 4, "a  \r\n\r\n中b").Snapshot()
	if got, want := s.Text(), "a\n\n中b"; got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
	if got := len(s.Lines()); got != 4 {
		t.Errorf("len(Lines()) = %d, want 4", got)
	}
}

func TestModes(t *testing.T) {
	tests := []struct {
		in   string
		want Modes
	}{
		{"", Modes{Autowrap: true}},
		{"\x1b[?1h", Modes{Autowrap: true, CursorKeys: true}},
		{"\x1b[?9;1000;1002;1003;1004;1006;2004;2026h", Modes{Autowrap: true, MouseX10: true, MouseNormal: true, MouseButton: true, MouseAny: true, Focus: true, MouseSGR: true, BracketedPaste: true, SyncOutput: true}},
		{"\x1b[?2004h\x1b[?2004l", Modes{Autowrap: true}},
		{"\x1b[?7l", Modes{}},
		{"\x1b[?6h", Modes{Autowrap: true, Origin: true}},
		{"\x1b[4h", Modes{Autowrap: true, Insert: true}},
		{"\x1b[?1049h", Modes{Autowrap: true, AltScreen: true}},
		{"\x1b[?1h\x1b[?2004h\x1bc", Modes{Autowrap: true}},
		{"\x1b[?1h\x1b[4h\x1b[!p", Modes{Autowrap: true}},
	}
	for _, tt := range tests {
		if got := feed(10, 3, tt.in).Snapshot().Modes; got != tt.want {
			t.Errorf("%q: modes = %+v, want %+v", tt.in, got, tt.want)
		}
	}
	e := feed(10, 3, "\x1b[?25l")
	if e.Snapshot().Cursor.Visible {
		t.Error("cursor visible after ?25l")
	}
	e.Write([]byte("\x1b[?25h"))
	if !e.Snapshot().Cursor.Visible {
		t.Error("cursor hidden after ?25h")
	}
}

func TestAltScreen(t *testing.T) {
	for _, mode := range []string{"47", "1047", "1049"} {
		t.Run(mode, func(t *testing.T) {
			e := feed(10, 3, "main\x1b[2;3H")
			e.Write([]byte("\x1b[?" + mode + "hALT"))
			s := e.Snapshot()
			if !s.Modes.AltScreen {
				t.Fatal("AltScreen not set")
			}
			if got := s.Lines()[0]; got == "main" {
				t.Errorf("alt screen shows main content")
			}
			e.Write([]byte("\x1b[?" + mode + "l"))
			s = e.Snapshot()
			if got := s.Lines()[0]; got != "main" {
				t.Errorf("main line 0 = %q after leaving alt", got)
			}
			if mode == "1049" && (s.Cursor.X != 2 || s.Cursor.Y != 1) {
				t.Errorf("cursor not restored: %+v", s.Cursor)
			}
			// Re-entering: 1047 cleared on exit, 1049 clears on entry, 47 keeps.
			e.Write([]byte("\x1b[?" + mode + "h"))
			alt := strings.Contains(e.Snapshot().Text(), "ALT")
			if alt != (mode == "47") {
				t.Errorf("alt content kept = %v", alt)
			}
		})
	}
}

// The alternate screen costs memory only while it can be shown: none before
// a program first switches to it, none after 1047/1049 left it (it would be
// blank on return), kept by 47 (whose content survives a round trip).
func TestAltScreenAllocatedOnlyWhenNeeded(t *testing.T) {
	e := feed(10, 3, "main")
	if e.alt != nil {
		t.Fatal("alternate screen allocated before use")
	}
	for _, mode := range []string{"47", "1047", "1049"} {
		e.Write([]byte("\x1b[?" + mode + "hALT"))
		if e.alt == nil {
			t.Fatalf("%s: in the alternate screen without one", mode)
		}
		e.Write([]byte("\x1b[?" + mode + "l"))
		if kept := e.alt != nil; kept != (mode == "47") {
			t.Errorf("%s: alternate screen kept after leaving = %v", mode, kept)
		}
		e.Write([]byte("\x1b[?47l\x1b[H\x1b[2J"))
		e.alt = nil
	}
	// Resizing with no alternate screen is fine, and entering it after a
	// resize gives one of the new size.
	e.Resize(20, 5)
	e.Write([]byte("\x1b[?1049h"))
	if s := e.Snapshot(); s.Cols != 20 || s.Rows != 5 || len(s.Cells[4]) != 20 {
		t.Fatalf("alternate screen after resize: %dx%d", s.Cols, s.Rows)
	}
}

func TestTitle(t *testing.T) {
	e := feed(10, 3, "\x1b]0;one\x07")
	if got := e.Snapshot().Title; got != "one" {
		t.Errorf("title = %q", got)
	}
	seq := e.Seq()
	e.Write([]byte("\x1b]2;two\x1b\\"))
	if got := e.Snapshot().Title; got != "two" {
		t.Errorf("title = %q", got)
	}
	if e.Seq() <= seq {
		t.Error("Seq did not advance on title change")
	}
}

func TestHyperlink(t *testing.T) {
	s := feed(10, 1, "\x1b]8;;http://x\x1b\\ab\x1b]8;;\x1b\\c").Snapshot()
	if s.Cells[0][0].Link.URL != "http://x" || s.Cells[0][1].Link.URL != "http://x" {
		t.Errorf("link not set: %+v", s.Cells[0][0].Link)
	}
	if !(s.Cells[0][2].Link == Link{}) {
		t.Errorf("link not cleared: %+v", s.Cells[0][2].Link)
	}
}

func TestReplies(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"\x1b[c", "\x1b[?62;22c"},
		{"\x1b[0c", "\x1b[?62;22c"},
		{"\x1b[>c", "\x1b[>1;10;0c"},
		{"\x1b[5n", "\x1b[0n"},
		{"\x1b[3;7H\x1b[6n", "\x1b[3;7R"},
		{"abcde\x1b[6n", "\x1b[1;6R"},
		{"\x1b[2;4r\x1b[?6h\x1b[2;3H\x1b[6n", "\x1b[2;3R"},
		{"\x1b[?2004h\x1b[?2004$p", "\x1b[?2004;1$y"},
		{"\x1b[?2004$p", "\x1b[?2004;2$y"},
		{"\x1b[?7$p", "\x1b[?7;1$y"},
		{"\x1b[?25$p", "\x1b[?25;1$y"},
		{"\x1b[?4242$p", "\x1b[?4242;0$y"},
		{"\x1b[4h\x1b[4$p", "\x1b[4;1$y"},
		{"\x1b[>q", "\x1bP>|heimdall-tui\x1b\\"},
		{"\x1b[>0q", "\x1bP>|heimdall-tui\x1b\\"},
		{"\x1b]10;?\x07", "\x1b]10;rgb:ffff/ffff/ffff\x1b\\"},
		{"\x1b]11;?\x1b\\", "\x1b]11;rgb:0000/0000/0000\x1b\\"},
		{"\x1b[1mhello", ""},
		{"\x1bP$qm\x1b\\", "\x1bP1$r0m\x1b\\"},
		{"\x1b[1;31m\x1bP$qm\x1b\\", "\x1bP1$r0;1;31m\x1b\\"},
		{"\x1b[2;4r\x1bP$qr\x1b\\", "\x1bP1$r2;4r\x1b\\"},
		{"\x1bP$q\"p\x1b\\", "\x1bP0$r\x1b\\"},
	}
	for _, tt := range tests {
		var got []string
		e := New(10, 5, Options{Reply: func(p []byte) { got = append(got, string(p)) }})
		e.Write([]byte(tt.in))
		if strings.Join(got, "") != tt.want {
			t.Errorf("%q: replies %q, want %q", tt.in, got, tt.want)
		}
	}
	// A Reply that reads the screen must not deadlock.
	var e *Emulator
	e = New(10, 5, Options{Reply: func([]byte) { e.Snapshot() }})
	e.Write([]byte("\x1b[c"))
}

func TestScrollback(t *testing.T) {
	e := New(5, 2, Options{ScrollbackLines: 3})
	e.Write([]byte("1\r\n2\r\n3\r\n4\r\n5\r\n6"))
	if got, want := e.Scrollback(), []string{"2", "3", "4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("scrollback = %q, want %q", got, want)
	}
	e.Write([]byte("\x1b[3J"))
	if got := e.Scrollback(); len(got) != 0 {
		t.Errorf("scrollback after ED 3 = %q", got)
	}
	// Region scrolls and the alternate screen do not feed scrollback.
	e = feed(5, 3, "a\x1b[1;2r\x1b[2H\n\n\n\x1b[r\x1b[?1049h\r\n\r\n\r\n\r\n")
	if got := e.Scrollback(); len(got) != 0 {
		t.Errorf("scrollback = %q, want none", got)
	}
	// None by default (or with a negative bound).
	for _, n := range []int{0, -1} {
		e = New(5, 1, Options{ScrollbackLines: n})
		e.Write([]byte("a\r\nb\r\n"))
		if got := e.Scrollback(); len(got) != 0 {
			t.Errorf("scrollback with %d = %q", n, got)
		}
	}
	e = New(5, 1, Options{ScrollbackLines: 1000})
	for range 1500 {
		e.Write([]byte("x\r\n"))
	}
	if got := len(e.Scrollback()); got != 1000 {
		t.Errorf("scrollback holds %d lines, want 1000", got)
	}
	// Wide chars appear once in scrollback.
	e = New(5, 1, Options{ScrollbackLines: 10})
	e.Write([]byte("中a\r\n"))
	if got := e.Scrollback(); !reflect.DeepEqual(got, []string{"中a"}) {
		t.Errorf("scrollback = %q", got)
	}
}

func TestSeq(t *testing.T) {
	e := New(10, 3, Options{})
	s0 := e.Seq()
	e.Write([]byte("a"))
	s1 := e.Seq()
	if s1 <= s0 {
		t.Fatal("Seq did not advance on print")
	}
	e.Write([]byte("\x1b[5n"))
	if e.Seq() != s1 {
		t.Error("Seq advanced on a query")
	}
	e.Write([]byte("\x1b[2;2H"))
	if e.Seq() <= s1 {
		t.Error("Seq did not advance on cursor move")
	}
	s2 := e.Seq()
	e.Write([]byte("\x1b[?2004h"))
	if e.Seq() <= s2 {
		t.Error("Seq did not advance on mode change")
	}
	if e.Snapshot().Seq != e.Seq() {
		t.Error("Snapshot.Seq differs from Seq")
	}
}

func TestSplitWrites(t *testing.T) {
	in := "a\x1b[1;31mb\x1b]0;ti\x07中\x1b[2;3HZ\x1b(0q"
	whole := feed(10, 3, in).Snapshot()
	e := New(10, 3, Options{})
	for i := 0; i < len(in); i++ {
		e.Write([]byte{in[i]})
	}
	split := e.Snapshot()
	whole.Seq, split.Seq = 0, 0
	if !reflect.DeepEqual(whole, split) {
		t.Errorf("byte-at-a-time differs:\n%q\n%q", whole.Lines(), split.Lines())
	}
}

// glyph is string(r), whichever range r is in.
func TestGlyph(t *testing.T) {
	for r := rune(0x80); r <= 0x3000; r++ {
		if got := glyph(r); got != string(r) {
			t.Fatalf("glyph(%U) = %q, want %q", r, got, string(r))
		}
	}
	for _, r := range []rune{0x1f600, 0x4e2d, 0xfffd} {
		if got := glyph(r); got != string(r) {
			t.Fatalf("glyph(%U) = %q", r, got)
		}
	}
}

// The character tables are constants (nothing is built before main): every
// ASCII byte maps to its own one-character string, and the DEC special
// graphics set (ESC ( 0) maps 0x5f..0x7e to these glyphs, in order.
func TestCharacterTables(t *testing.T) {
	for b := range 0x80 {
		if got, want := asciiStr(byte(b)), string(rune(b)); got != want {
			t.Errorf("asciiStr(%#x) = %q, want %q", b, got, want)
		}
	}
	const dec = "\u00a0◆▒␉␌␍␊°±␤␋┘┐┌└┼⎺⎻─⎼⎽├┤┴┬│≤≥π≠£·"
	if got := strings.Join(decGraphics[:], ""); got != dec {
		t.Errorf("decGraphics = %q, want %q", got, dec)
	}
}
