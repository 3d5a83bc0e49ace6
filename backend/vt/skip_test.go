package vt

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// state is everything about an emulator a later byte or a reader can
// observe: both screens' cells, the cursor, pending wrap, pen, REP's last
// character, modes, region, charsets and title.
func state(e *Emulator) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var sb strings.Builder
	for _, s := range []*screen{e.main, e.alt} {
		if s != nil {
			fmt.Fprintf(&sb, "%#v\n%+v\n", e.cellLines(s), s.saved)
		}
	}
	fmt.Fprintf(&sb, "alt=%v x=%d y=%d wrap=%v style=%#v link=%#v last=%q/%d modes=%+v region=%d-%d cs=%v gl=%d title=%q",
		e.scr == e.alt, e.x, e.y, e.wrapNext, e.style, e.link, e.lastContent, e.lastWidth,
		e.modes, e.top, e.bottom, e.charsets, e.gl, e.title)
	return sb.String()
}

// plainish returns n bytes that are mostly plain (skip.go) — text of every
// width, line feeds, SGR with background colours (erase uses them), EL —
// with now and then a sequence that ends a plain run (cursor moves, scroll
// regions, insert and autowrap modes, the alternate screen, charsets, REP).
func plainish(r *rand.Rand, n int) []byte {
	plain := []string{
		"x", "hello world", "0123456789abcdefghij", "\r\n", "\r\n", "\n", "\n", "\n", "\v", "\f",
		"\r", "\t", "\b", "\a", "中", "文字", "😀", "e\u0301", "\u00e9", "\x1b[m", "\x1b[0m",
		"\x1b[1;31m", "\x1b[44m", "\x1b[48;5;22m", "\x1b[38:2::1:2:3m", "\x1b[K", "\x1b[1K", "\x1b[2K",
	}
	other := []string{
		"\x1b[2;3H", "\x1b[A", "\x1b[3B", "\x1b[2;5r", "\x1b[r", "\x1b[4h", "\x1b[4l", "\x1b[?7l",
		"\x1b[?7h", "\x1b[?1049h", "\x1b[?1049l", "\x1b(0", "\x1b(B", "\x0e", "\x0f", "\x1b[3b",
		"\x1b7", "\x1b8", "\x1bM", "\x1b[2J", "\x1b]0;title\x07", "\x1b[3S", "\x1b[?6h", "\x1b[?6l",
		"\x1b[5@", "\x1b[2P", "\xc2\x85", "\xff", "\x1b[3K", "\x1b[?2K",
	}
	var b []byte
	for len(b) < n {
		if r.Intn(40) == 0 {
			b = append(b, other[r.Intn(len(other))]...)
		} else {
			b = append(b, plain[r.Intn(len(plain))]...)
		}
	}
	return b
}

// TestDrySkipExact: writing a stream in chunks (which applies the cells
// that scroll away unseen dry) leaves exactly the state writing it a byte
// at a time does (no lookahead, so nothing is skipped), after every chunk,
// on small screens where lines wrap and scroll all the time.
func TestDrySkipExact(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	skipped := 0
	for round := 0; round < 300; round++ {
		cols, rows := 1+r.Intn(12), 1+r.Intn(6)
		chunked, oracle := New(cols, rows, Options{}), New(cols, rows, Options{})
		in := plainish(r, 2000+r.Intn(4000))
		for len(in) > 0 {
			n := min(len(in), 1+r.Intn(600))
			chunk := in[:n]
			in = in[n:]
			if d, _ := chunked.dryLen(chunk); d > 0 && chunked.canSkip() {
				skipped++
			}
			// Whole chunks (Write), or as the Feeder applies a batch: a
			// budget at a time, each call ending on an exact screen.
			budget := len(chunk)
			if round%2 == 1 {
				budget = 1 + r.Intn(200)
			}
			for rest := chunk; len(rest) > 0; {
				n := chunked.WriteSome(rest, budget)
				for i := range n {
					oracle.Write(rest[i : i+1])
				}
				if got, want := state(chunked), state(oracle); got != want {
					t.Fatalf("round %d (%dx%d), budget %d: %q of chunk %q\nchunked: %s\noracle:  %s", round, cols, rows, budget, rest[:n], chunk, got, want)
				}
				rest = rest[n:]
			}
		}
	}
	if skipped < 100 {
		t.Fatalf("only %d chunks were skipped into: the test does not exercise the skip", skipped)
	}
}

// FuzzDrySkip is TestDrySkipExact on any input.
func FuzzDrySkip(f *testing.F) {
	f.Add([]byte("ab\r\ncd\n\n\nef\x1b[44m\x1b[K\n\n\n\n中\n\n\n"), uint8(3), uint8(2), uint16(7))
	f.Add([]byte("\x1b[2;3r\n\n\n\n\n\nx\n\n\n\n"), uint8(4), uint8(4), uint16(3))
	f.Fuzz(func(t *testing.T, in []byte, cols, rows uint8, cut uint16) {
		c, r := 1+int(cols%30), 1+int(rows%10)
		chunked, oracle := New(c, r, Options{}), New(c, r, Options{})
		// Two Writes cut at cut, or WriteSome calls of budget cut%64+1.
		k := int(cut) % (len(in) + 1)
		step := func(p []byte) int { return chunked.WriteSome(p, len(p)) }
		if cut&0x8000 != 0 {
			step = func(p []byte) int { return chunked.WriteSome(p, int(cut%64)+1) }
		}
		for _, part := range [][]byte{in[:k], in[k:]} {
			for len(part) > 0 {
				n := step(part)
				for i := range n {
					oracle.Write(part[i : i+1])
				}
				if got, want := state(chunked), state(oracle); got != want {
					t.Fatalf("%dx%d cut %d, after %q:\nchunked: %s\noracle:  %s", c, r, cut, part[:n], got, want)
				}
				part = part[n:]
			}
		}
	})
}

// TestDryLen pins the plan: how much of a chunk is applied dry.
func TestDryLen(t *testing.T) {
	lines := strings.Repeat("line\r\n", 10)
	for _, c := range []struct {
		name     string
		rows, y  int
		in       string
		dry, run int
	}{
		// Cursor on the bottom row: rows line feeds must follow.
		{"bottom", 3, 2, lines, 7 * 6, 60},
		// Cursor on the top row: 2*rows-1 must follow.
		{"top", 3, 0, lines, 5 * 6, 60},
		{"too few feeds", 3, 2, "a\nb\nc\n", 0, 6},
		// A cursor move ends the run; nothing after it counts.
		{"cut by CUP", 3, 2, lines + "\x1b[H" + lines, 7 * 6, 60},
		{"cut by a partial SGR", 2, 1, "a\nb\nc\nd\x1b[3", 2, 7},
		{"SGR and EL are plain", 1, 0, "\x1b[1;31ma\x1b[K\nb\x1b[2K\n", 12, 18},
		{"EL 3 is not", 1, 0, "a\nb\n\x1b[3K", 2, 4},
		{"C1 is not", 1, 0, "a\nb\n\xc2\x9b", 2, 4},
	} {
		e := New(10, c.rows, Options{})
		e.y = c.y
		dry, run := e.dryLen([]byte(c.in))
		if dry != c.dry || run != c.run {
			t.Errorf("%s: dryLen = %d, %d; want %d, %d", c.name, dry, run, c.dry, c.run)
		}
	}
}

// TestDrySkipNeedsFullRegionNoScrollback: with a scroll region or a
// scrollback the rows that scroll are kept, so nothing is skipped.
func TestDrySkipNeedsFullRegionNoScrollback(t *testing.T) {
	e := New(10, 4, Options{})
	if !e.canSkip() {
		t.Fatal("a fresh emulator cannot skip")
	}
	e.Write([]byte("\x1b[2;3r"))
	if e.canSkip() {
		t.Error("can skip with a scroll region")
	}
	if New(10, 4, Options{ScrollbackLines: 5}).canSkip() {
		t.Error("can skip with a scrollback")
	}
	// And the scrollback gets every line.
	sb := New(4, 2, Options{ScrollbackLines: 100})
	sb.Write([]byte(strings.Repeat("ab\r\n", 50)))
	if got := len(sb.Scrollback()); got != 49 {
		t.Errorf("scrollback has %d lines, want 49", got)
	}
}

// printableRun finds the first byte outside 0x20–0x7e at every offset and
// alignment, whatever surrounds it.
func TestPrintableRun(t *testing.T) {
	for _, bad := range []byte{0x00, 0x0a, 0x1b, 0x1f, 0x7f, 0x80, 0xc3, 0xff} {
		for at := 0; at < 20; at++ {
			for _, fill := range []byte{' ', 'a', '~'} {
				p := bytes.Repeat([]byte{fill}, 24)
				p[at] = bad
				if got := printableRun(p); got != at {
					t.Fatalf("byte %#x at %d among %q: printableRun = %d", bad, at, fill, got)
				}
			}
		}
	}
	if got := printableRun([]byte("all printable, 27 of them!!")); got != 27 {
		t.Fatalf("printableRun = %d, want 27", got)
	}
}

// WriteSome's budget bounds the bytes whose cells it writes; those it can
// apply dry cost 1/dryWeight.
func TestWriteSomeBudget(t *testing.T) {
	redraw := []byte(strings.Repeat("\x1b[5;1Hsome text on row five\x1b[K", 200))
	e := New(80, 24, Options{})
	if n := e.WriteSome(redraw, 100); n < 100 || n > 140 {
		t.Errorf("a redraw with budget 100: %d bytes applied", n)
	}
	log := []byte(strings.Repeat("a plain log line of forty bytes or so..\r\n", 1000))
	e = New(80, 24, Options{})
	// All but the last two screenfuls (the cursor starts at the top: ~2 KB
	// of full work) dry: 39 KB cost as much as 2.5 KB written.
	if n := e.WriteSome(log, 8192); n != len(log) {
		t.Errorf("a flood of %d bytes with budget 8192: %d bytes applied", len(log), n)
	}
	if n := New(80, 24, Options{}).WriteSome(log, 1024); n < 16*1024 || n > 17*1024 {
		t.Errorf("a flood of %d bytes with budget 1024: %d bytes applied", len(log), n)
	}
	if n := New(80, 24, Options{}).WriteSome([]byte("\x1b[5;1H"), 0); n != 1 {
		t.Errorf("budget 0: %d bytes applied, want 1", n)
	}
}
