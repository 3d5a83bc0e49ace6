package pane

import (
	"fmt"
	"image/color"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/heimdall-tui/heimdall-tui/backend/vt"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/internal/shapetest"
)

// snap feeds data to a fresh cols×rows emulator and returns its screen.
func snap(cols, rows int, data string) *vt.Snapshot {
	e := vt.New(cols, rows, vt.Options{})
	e.Write([]byte(data))
	return e.Snapshot()
}

// agentScreen is an 80×24 screen like an agent's: a coloured header,
// 256-colour and truecolor text, attributes, wide characters, a prompt at
// the bottom with the cursor in it.
func agentScreen() *vt.Snapshot {
	var b strings.Builder
	b.WriteString("\x1b[1;38;5;75m● claude\x1b[m \x1b[2mv2.1 · ~/src/heimdall\x1b[m\r\n\r\n")
	b.WriteString("\x1b[32m✓\x1b[m Read \x1b[4mbackend/vt/snapshot.go\x1b[24m (120 lines)\r\n")
	b.WriteString("\x1b[33m⏺\x1b[m \x1b[38;2;224;175;104mUpdate\x1b[m(tui/pane/render.go)\r\n")
	b.WriteString("  \x1b[41;97m- old line \x1b[m\r\n  \x1b[42;30m+ new line \x1b[m\r\n")
	b.WriteString("日本語のテキスト mixed with ascii\r\n")
	b.WriteString("\x1b[3;35mitalic magenta\x1b[m \x1b[7mreverse\x1b[m \x1b[9mstrike\x1b[m \x1b[4:3;58;5;196mcurly\x1b[m\r\n")
	for i := range 8 {
		fmt.Fprintf(&b, "\x1b[38;5;%dmline %02d\x1b[m of output that runs on for a while to fill the row ....\r\n", 240+i, i)
	}
	b.WriteString("\x1b[22;1H\x1b[48;5;236m" + strings.Repeat(" ", 80) + "\x1b[m")
	b.WriteString("\x1b[23;1H\x1b[1m>\x1b[m fix the crop edge")
	b.WriteString("\x1b[24;1H\x1b[2m? for shortcuts\x1b[m")
	b.WriteString("\x1b[23;20H") // cursor after the prompt text
	return snap(80, 24, b.String())
}

// wideScreen is a 200×50 screen, coloured on every row.
func wideScreen() *vt.Snapshot {
	var b strings.Builder
	for y := range 50 {
		fmt.Fprintf(&b, "\x1b[%d;1H", y+1)
		for x := 0; x < 200; x += 10 {
			fmt.Fprintf(&b, "\x1b[38;5;%dm%03d:%03d \x1b[1;48;2;%d;%d;40m|\x1b[m ", (x+y)%256, y, x, x%256, y*5)
		}
	}
	b.WriteString("\x1b[50;1H$ \x1b[50;3H")
	return snap(200, 50, b.String())
}

// colourSGR matches a colour parameter in the SGR sequences Render writes
// ("ESC[0;attrs;colours m": attributes are single digits or 4:n).
var colourSGR = regexp.MustCompile(`;(3[0-9]|4[0-9]|9[0-7]|10[0-7]|58)[;m]`)

var (
	dark  = themes.Build(themes.Dark(), false)
	light = themes.Build(themes.Light(), false)
	mono  = themes.Build(themes.Dark(), true)
)

func TestRenderGolden(t *testing.T) {
	s := agentScreen()
	t.Run("full", func(t *testing.T) {
		out, cropped := Render(s, 80, 24, Options{Color: true, Cursor: true})
		if cropped {
			t.Error("80x24 screen in 80x24 reported cropped")
		}
		shapetest.Check(t, out, 80, 24)
		golden.RequireEqual(t, out)
	})
	t.Run("cropped", func(t *testing.T) {
		out, cropped := Render(s, 30, 10, Options{Color: true, Cursor: true})
		if !cropped {
			t.Error("80x24 screen in 30x10 not reported cropped")
		}
		shapetest.Check(t, out, 30, 10)
		golden.RequireEqual(t, out)
	})
	t.Run("padded", func(t *testing.T) {
		out, cropped := Render(snap(10, 3, "\x1b[31mred\x1b[m\r\nab"), 14, 5, Options{Color: true})
		if cropped {
			t.Error("small screen reported cropped")
		}
		shapetest.Check(t, out, 14, 5)
		golden.RequireEqual(t, out)
	})
	t.Run("monochrome", func(t *testing.T) {
		out, _ := Render(s, 80, 24, Options{Color: false, Cursor: true})
		shapetest.Check(t, out, 80, 24)
		if colourSGR.MatchString(out) {
			t.Errorf("Color:false output has colour codes")
		}
		golden.RequireEqual(t, out)
	})
}

// TestRenderRoundTrip renders screens at their own size and feeds the
// result to a new emulator: every cell's content, width and style must
// come back, which checks the SGR encoding for every kind of colour and
// attribute the emulator produces.
func TestRenderRoundTrip(t *testing.T) {
	for name, s := range map[string]*vt.Snapshot{"agent": agentScreen(), "wide": wideScreen()} {
		out, _ := Render(s, s.Cols, s.Rows, Options{Color: true})
		e := vt.New(s.Cols, s.Rows, vt.Options{})
		// Disable autowrap so a full last column does not wrap.
		e.Write([]byte("\x1b[?7l" + strings.ReplaceAll(out, "\n", "\r\n")))
		got := e.Snapshot()
		for y := range s.Rows {
			for x := range s.Cols {
				a, b := &s.Cells[y][x], &got.Cells[y][x]
				if a.Content != b.Content || a.Width != b.Width || !a.Style.Equal(&b.Style) {
					t.Fatalf("%s: cell (%d,%d) = %q w%d %+v, want %q w%d %+v", name, x, y, b.Content, b.Width, b.Style, a.Content, a.Width, a.Style)
				}
			}
		}
	}
}

func TestRenderCrop(t *testing.T) {
	// 20 numbered rows, cursor at the bottom: a 5-row pane shows 15–19.
	var b strings.Builder
	for i := range 20 {
		if i > 0 {
			b.WriteString("\r\n")
		}
		fmt.Fprintf(&b, "row%02d %s", i, strings.Repeat("abcdefghij", 3))
	}
	lines := func(s *vt.Snapshot, w, h int) []string {
		out, cropped := Render(s, w, h, Options{})
		if !cropped {
			t.Errorf("%dx%d of %dx%d not cropped", w, h, s.Cols, s.Rows)
		}
		return strings.Split(out, "\n")
	}
	s := snap(40, 20, b.String())
	if l := lines(s, 40, 5); l[0] != "row15 abcdefghijabcdefghijabcdefghij    " || l[4][:5] != "row19" {
		t.Errorf("bottom crop = %q", l)
	}
	// Cursor high on the screen: its row is kept, as low as possible.
	s = snap(40, 20, b.String()+"\x1b[4;3H") // row 3
	if l := lines(s, 40, 5); l[0][:5] != "row03" || l[4][:5] != "row07" {
		t.Errorf("cursor-row crop = %q", l)
	}
	// Content ends above the bottom (a shell after a few lines): the pane
	// shows the top of the screen, not blank rows below the prompt.
	s = snap(40, 20, "one\r\ntwo\r\nthree\r\n$ ")
	if l := lines(s, 40, 5); !strings.HasPrefix(l[0], "one") || !strings.HasPrefix(l[3], "$ ") {
		t.Errorf("short content crop = %q", l)
	}
	// Something drawn below the cursor (a status line) counts as content.
	s = snap(40, 20, "one\r\ntwo\x1b[6;1Hstatus\x1b[2;4H")
	if l := lines(s, 40, 5); !strings.HasPrefix(l[0], "two") || !strings.HasPrefix(l[4], "status") {
		t.Errorf("status-line crop = %q", l)
	}
	// Cursor far right: columns shift just enough to show it.
	s = snap(40, 20, b.String()+"\x1b[20;30H") // column 29
	if l := lines(s, 10, 3); l[2] != "efghijabcd" {
		t.Errorf("cursor-column crop = %q", l)
	}
	// Cursor on the left: the left edge is shown.
	s = snap(40, 20, b.String()+"\x1b[20;1H")
	if l := lines(s, 10, 3); l[2] != "row19 abcd" {
		t.Errorf("left crop = %q", l)
	}
}

func TestRenderWideEdges(t *testing.T) {
	// "a日b" on a 6-column screen: 日 occupies columns 1–2.
	cases := []struct {
		w    int
		cup  string // cursor position
		want string
	}{
		{2, "\x1b[1;1H", "a "}, // the right edge cuts 日: a space
		{3, "\x1b[1;1H", "a日"}, // fits
		{2, "\x1b[1;4H", " b"}, // cursor on b: x0 = 2 is 日's right half
		{2, "\x1b[1;5H", "b "}, // x0 = 3
	}
	for _, c := range cases {
		s := snap(6, 1, "a日b"+c.cup)
		if out, _ := Render(s, c.w, 1, Options{}); out != c.want {
			t.Errorf("w=%d cursor %q: %q, want %q", c.w, c.cup, out, c.want)
		}
	}
	for w := 1; w <= 8; w++ {
		for cx := 1; cx <= 6; cx++ {
			s := snap(6, 1, fmt.Sprintf("a日b日\x1b[1;%dH", cx))
			out, _ := Render(s, w, 1, Options{Color: true, Cursor: true})
			if got := ansi.StringWidth(out); got != w {
				t.Errorf("w=%d cursor %d: width %d: %q", w, cx, got, out)
			}
		}
	}
}

func TestRenderCursor(t *testing.T) {
	s := snap(5, 1, "abc\x1b[1;2H")
	out, _ := Render(s, 5, 1, Options{Cursor: true})
	if want := "a\x1b[0;7mb\x1b[mc  "; out != want {
		t.Errorf("cursor: %q, want %q", out, want)
	}
	if out, _ := Render(s, 5, 1, Options{}); out != "abc  " {
		t.Errorf("no cursor option: %q", out)
	}
	hidden := snap(5, 1, "abc\x1b[1;2H\x1b[?25l")
	if out, _ := Render(hidden, 5, 1, Options{Cursor: true}); out != "abc  " {
		t.Errorf("hidden cursor drawn: %q", out)
	}
}

func TestRenderANSIRemap(t *testing.T) {
	s := snap(3, 1, "\x1b[31mr\x1b[42mg\x1b[m")
	pal := [16]color.Color{1: color.RGBA{1, 2, 3, 255}}
	out, _ := Render(s, 3, 1, Options{Color: true, ANSI: &pal})
	if want := "\x1b[0;38;2;1;2;3mr\x1b[0;38;2;1;2;3;42mg\x1b[m "; out != want {
		t.Errorf("remap: %q, want %q", out, want)
	}
}

func TestRenderNilAndDegenerate(t *testing.T) {
	out, cropped := Render(nil, 4, 2, Options{Color: true})
	if out != "    \n    " || cropped {
		t.Errorf("nil snapshot: %q %v", out, cropped)
	}
	if out, _ := Render(agentScreen(), 0, 3, Options{}); out != "\n\n" {
		t.Errorf("zero width: %q", out)
	}
	if out, _ := Render(agentScreen(), 3, 0, Options{}); out != "" {
		t.Errorf("zero height: %q", out)
	}
	empty := &vt.Snapshot{}
	if out, _ := Render(empty, 2, 1, Options{}); out != "  " {
		t.Errorf("empty snapshot: %q", out)
	}
	// A malformed row (orphan continuation cells, a wide char at the end)
	// still renders at the right width.
	bad := &vt.Snapshot{Cols: 4, Rows: 1, Cells: [][]vt.Cell{{{Width: 0}, {Content: "日", Width: 2}, {Content: "x", Width: 1}, {Content: "日", Width: 2}}}}
	for w := 1; w <= 6; w++ {
		out, _ := Render(bad, w, 1, Options{Color: true, Cursor: true})
		if ansi.StringWidth(out) != w {
			t.Errorf("malformed row at w=%d: %q", w, out)
		}
	}
}

// TestRenderShape renders at every size from 1×1 to 90×30 and checks the
// output is exactly that size.
func TestRenderShape(t *testing.T) {
	screens := []*vt.Snapshot{nil, agentScreen(), snap(10, 3, "日本語日本語日本語")}
	for _, s := range screens {
		for w := 1; w <= 90; w += 1 {
			for h := 1; h <= 30; h += 3 {
				out, _ := Render(s, w, h, Options{Color: true, Cursor: true})
				shapetest.Check(t, out, w, h)
			}
		}
	}
}

func TestFrameGolden(t *testing.T) {
	s := agentScreen()
	themesByName := []struct {
		name string
		st   *themes.Styles
	}{{"dark", dark}, {"light", light}}
	for _, th := range themesByName {
		for _, w := range []int{60, 80, 120, 200} {
			t.Run(fmt.Sprintf("%s/%d", th.name, w), func(t *testing.T) {
				h := 16
				body, cropped := Render(s, w-2, h-2, Options{Color: true, Cursor: true})
				out := Frame(th.st, Border{Title: "claude-1", State: "Thinking", Focused: true, Cropped: cropped, Info: "~/src/app · claude"}, body, w, h)
				shapetest.Check(t, out, w, h)
				if cropped != (w-2 < 80 || h-2 < 24) || !strings.Contains(out, CroppedLabel) {
					t.Errorf("cropped = %v and label shown = %v", cropped, strings.Contains(out, CroppedLabel))
				}
				golden.RequireEqual(t, out)
			})
		}
	}
	t.Run("needs-input-unfocused", func(t *testing.T) {
		body, _ := Render(snap(30, 4, "Allow edit? (y/n)"), 30, 4, Options{Color: true})
		out := Frame(dark, Border{Title: "aider-2", State: "Idle", NeedsInput: true}, body, 32, 6)
		shapetest.Check(t, out, 32, 6)
		if !strings.Contains(ansi.Strip(out), "aider-2 · needs input") || strings.Contains(out, CroppedLabel) {
			t.Errorf("title/cropped wrong:\n%s", ansi.Strip(out))
		}
		golden.RequireEqual(t, out)
	})
	t.Run("monochrome", func(t *testing.T) {
		body, cropped := Render(s, 58, 14, Options{Color: false, Cursor: true})
		out := Frame(mono, Border{Title: "claude-1", State: "ToolUse", Focused: true, Cropped: cropped}, body, 60, 16)
		shapetest.Check(t, out, 60, 16)
		if colourSGR.MatchString(out) || strings.Contains(out, "38;2") || strings.Contains(out, "48;2") {
			t.Error("monochrome frame has colours")
		}
		golden.RequireEqual(t, out)
	})
}

func TestFrameTitle(t *testing.T) {
	cases := []struct {
		w          int
		name, want string
	}{
		{40, "claude-1", "╭─ claude-1 · Streaming " + strings.Repeat("─", 15) + "╮"},
		{24, "a-very-long-session-name", "╭─ a-very… · Streaming ╮"},
		{16, "claude-1", "╭─ Streaming ──╮"}, // no room for both: the state, not the name
		{8, "claude-1", "╭─ cl… ╮"},
		{4, "claude-1", "╭──╮"},
		{2, "claude-1", "╭╮"},
	}
	for _, c := range cases {
		out := Frame(dark, Border{Title: c.name, State: "Streaming"}, "", c.w, 3)
		top := ansi.Strip(strings.Split(out, "\n")[0])
		if top != c.want {
			t.Errorf("w=%d: top %q, want %q", c.w, top, c.want)
		}
		shapetest.Check(t, out, c.w, 3)
	}
}

func TestFrameShape(t *testing.T) {
	body := "\x1b[31mlong red line that goes on and on\x1b[m\nshort\n日本語日本語日本語日本語\n\n\nextra\nextra"
	for _, st := range []*themes.Styles{dark, mono} {
		for w := 0; w <= 50; w++ {
			for h := 0; h <= 8; h++ {
				for _, title := range []string{"", "x", "claude-1", "日本語の名前", "bad\x1b[31mname\n"} {
					out := Frame(st, Border{Title: title, State: "ToolUse", NeedsInput: w%2 == 0, Focused: h%2 == 0, Cropped: w%3 == 0, Info: "/a/long/working/dir · claude"}, body, w, h)
					if strings.Contains(ansi.Strip(out), "\x1b") || strings.Count(out, "\n") != max(h-1, 0) {
						t.Fatalf("w=%d h=%d title %q: escape leaked or wrong line count: %q", w, h, title, out)
					}
					shapetest.Check(t, out, w, h)
				}
			}
		}
	}
}

func BenchmarkRender200x50(b *testing.B) {
	s := wideScreen()
	b.ReportAllocs()
	for b.Loop() {
		Render(s, 200, 50, Options{Color: true, Cursor: true})
	}
}

func BenchmarkRender80x24(b *testing.B) {
	s := agentScreen()
	b.ReportAllocs()
	for b.Loop() {
		Render(s, 80, 24, Options{Color: true, Cursor: true})
	}
}

// BenchmarkRenderFrameGrid16 is one frame of a 16-pane grid at 200×50:
// sixteen 80×24 screens cropped into 48×10 panes, rendered and framed.
func BenchmarkRenderFrameGrid16(b *testing.B) {
	s := agentScreen()
	b.ReportAllocs()
	for b.Loop() {
		for range 16 {
			body, cropped := Render(s, 48, 10, Options{Color: true})
			Frame(dark, Border{Title: "claude-1", State: "Thinking", Cropped: cropped}, body, 50, 12)
		}
	}
}
