package vt

import (
	"math/rand"
	"sync"
	"testing"
)

// randomInput returns n bytes biased towards escape sequences, controls
// and multibyte characters, to exercise edge cases.
func randomInput(r *rand.Rand, n int) []byte {
	pieces := []string{
		"\x1b[", "\x1b]", "\x1b(0", "\x1b(B", "\x1bM", "\x1bD", "\x1b7", "\x1b8", "\x1bc",
		";", ":", "?", "1", "2", "9", "99999", "H", "J", "K", "L", "M", "P", "@", "X", "b", "r",
		"m", "h", "l", "S", "T", "q", "\x07", "\r", "\n", "\t", "\b", "中", "😀", "\u0301",
		"\xe4", "\xff", "x", "hello", "1049", "47", "38;2;1;2;3", "4:3", "$p", "\x0e", "\x0f",
	}
	var b []byte
	for len(b) < n {
		b = append(b, pieces[r.Intn(len(pieces))]...)
	}
	return b
}

func TestResizeRandom(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	e := New(80, 24, Options{ScrollbackLines: 50})
	for i := 0; i < 600; i++ {
		e.Write(randomInput(r, r.Intn(200)))
		if r.Intn(4) == 0 {
			cols, rows := 1+r.Intn(120), 1+r.Intn(50)
			if r.Intn(10) == 0 {
				cols, rows = r.Intn(3)-1, r.Intn(3)-1 // clamped to 1
			}
			e.Resize(cols, rows)
			s := e.Snapshot()
			if s.Cols != max(cols, 1) || s.Rows != max(rows, 1) {
				t.Fatalf("size %dx%d after Resize(%d, %d)", s.Cols, s.Rows, cols, rows)
			}
		}
		checkShape(t, e.Snapshot())
	}
	_ = e.Scrollback()
}

func TestResizeKeepsContent(t *testing.T) {
	e := New(10, 5, Options{ScrollbackLines: 10})
	e.Write([]byte("one\r\ntwo\r\nthree\r\nfour"))
	e.Resize(3, 2)
	s := e.Snapshot()
	// Cursor was on row 3; shrinking to 2 rows pushes two rows to scrollback.
	if got := s.Text(); got != "thr\nfou" {
		t.Errorf("text after shrink = %q", got)
	}
	if got := e.Scrollback(); len(got) != 2 || got[0] != "one" {
		t.Errorf("scrollback = %q", got)
	}
	if s.Cursor.X != 2 || s.Cursor.Y != 1 {
		t.Errorf("cursor = %+v", s.Cursor)
	}
	e.Resize(20, 4)
	e.Write([]byte("\x1b[4;20HZ"))
	s = e.Snapshot()
	if got := s.Lines()[3]; len(got) != 20 || got[19] != 'Z' {
		t.Errorf("row 3 after grow = %q", got)
	}
	// Scroll region is reset to the full new screen.
	e.Write([]byte("\x1b[1;2r\x1b[?1049h"))
	e.Resize(5, 8)
	e.Write([]byte("\x1b[8Hx\ny\nz"))
	checkShape(t, e.Snapshot())
	// Tab stops extend to new columns.
	e = feed(8, 1, "")
	e.Resize(20, 1)
	e.Write([]byte("\t\tx"))
	if got := e.Snapshot().Lines()[0]; got != "                x" {
		t.Errorf("tabs after resize: %q", got)
	}
}

func TestConcurrentSnapshot(t *testing.T) {
	e := New(80, 24, Options{})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var last uint64
			for {
				select {
				case <-stop:
					return
				default:
				}
				s := e.Snapshot()
				if s.Seq < last {
					t.Errorf("Seq went backwards: %d < %d", s.Seq, last)
					return
				}
				last = s.Seq
				_ = s.ANSI()
				_ = e.Seq()
				_ = e.Scrollback()
				if len(s.Cells) != s.Rows || len(s.Cells[0]) != s.Cols {
					t.Errorf("inconsistent snapshot")
					return
				}
			}
		}()
	}
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 400; i++ {
		e.Write(randomInput(r, 100))
		if i%50 == 0 {
			e.Resize(40+r.Intn(80), 10+r.Intn(30))
		}
	}
	close(stop)
	wg.Wait()
}

func FuzzWrite(f *testing.F) {
	f.Add([]byte("hello\r\nworld"), uint8(10), uint8(3))
	f.Add([]byte("\x1b[2;3H\x1b[1;31m中\x1b[K\x1b[?1049h\x1b[3L"), uint8(5), uint8(2))
	f.Add([]byte("\x1b(0lqk\x1b[5b\x1b]0;t\x07\x1b[2;1r\x1bM"), uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, cols, rows uint8) {
		e := New(int(cols%200), int(rows%100), Options{ScrollbackLines: 10, Reply: func([]byte) {}})
		half := len(in) / 2
		e.Write(in[:half])
		e.Resize(int(rows%50), int(cols%50))
		e.Write(in[half:])
		s := e.Snapshot()
		checkShape(t, s)
		_ = s.ANSI()
		_ = s.Text()
	})
}
