package vt

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkASCIILog measures the fast path: plain log lines ending in
// CRLF on an 80x24 screen, with a full 1000-line scrollback ring and
// without one (as the supervisor and the dashboard run it).
func BenchmarkASCIILog(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 64<<10; i++ {
		fmt.Fprintf(&sb, "2026-11-22T21:29:51.%03dZ INFO  server: handled request id=%d path=/api/v1/items status=200 dur=%dms\r\n", i%1000, i, i%97)
	}
	data := []byte(sb.String())
	for _, c := range []struct {
		name  string
		lines int
	}{{"scrollback=1000", 1000}, {"scrollback=none", 0}} {
		b.Run(c.name, func(b *testing.B) {
			benchWrite(b, New(80, 24, Options{ScrollbackLines: c.lines}), data)
		})
	}
}

// BenchmarkColorRedraw measures a full-screen redraw like htop: cursor
// positioning per row and 256-colour / truecolor SGR per cell.
func BenchmarkColorRedraw(b *testing.B) {
	const cols, rows = 120, 40
	var sb strings.Builder
	sb.WriteString("\x1b[H")
	for y := 0; y < rows; y++ {
		fmt.Fprintf(&sb, "\x1b[%d;1H", y+1)
		for x := 0; x < cols; x++ {
			if x%2 == 0 {
				fmt.Fprintf(&sb, "\x1b[38;5;%d;48;2;%d;%d;%dm", (x+y)%256, x%8*32, y%8*32, 40)
			} else {
				fmt.Fprintf(&sb, "\x1b[1;38;2;%d;%d;%dm", y%4*64, x%4*64, 200)
			}
			sb.WriteByte(byte('a' + (x+y)%26))
		}
		sb.WriteString("\x1b[0m")
	}
	data := []byte(sb.String())
	benchWrite(b, New(cols, rows, Options{}), data)
}

// BenchmarkBoxUI measures a redraw of an agent's TUI drawn with non-ASCII
// glyphs (box drawing, symbols, a braille spinner), as claude's is.
func BenchmarkBoxUI(b *testing.B) {
	const cols, rows = 100, 30
	spin := []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
	var sb strings.Builder
	sb.WriteString("\x1b[H")
	sb.WriteString("╭" + strings.Repeat("─", cols-2) + "╮\r\n")
	for y := 1; y < rows-1; y++ {
		fmt.Fprintf(&sb, "│ %c ⏺ Read(src/file%02d.go) → ✻ thinking… %s│\r\n", spin[y%len(spin)], y, strings.Repeat("·", cols-42))
	}
	sb.WriteString("╰" + strings.Repeat("─", cols-2) + "╯")
	data := []byte(sb.String())
	benchWrite(b, New(cols, rows, Options{}), data)
}

// benchWrite measures e.Write(data), after one write to warm up (the
// screen, and any scrollback, then reuse their storage).
func benchWrite(b *testing.B, e *Emulator, data []byte) {
	e.Write(data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		e.Write(data)
	}
}

// BenchmarkSnapshot measures what the dashboard pays to copy a screen
// out: a full one (every row written) and an idle prompt (one row written,
// the others blank).
func BenchmarkSnapshot(b *testing.B) {
	const cols, rows = 120, 35
	full := New(cols, rows, Options{})
	for y := range rows {
		fmt.Fprintf(full, "\x1b[%d;1H\x1b[3%dm%s", y+1, y%8, strings.Repeat("x", cols))
	}
	prompt := New(cols, rows, Options{})
	prompt.Write([]byte("user@host:~/src/app$ "))
	for _, c := range []struct {
		name string
		e    *Emulator
	}{{"full", full}, {"prompt", prompt}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				c.e.Snapshot()
			}
		})
	}
}
