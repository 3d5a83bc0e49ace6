package vt

import "testing"

// Titles with UTF-8 whose bytes include 0x9C (the 8-bit ST), every
// terminator, byte-by-byte feeding, and aborts.
func TestOSCTitle(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"BEL", "\x1b]0;✳ Fix the parser\x07", "✳ Fix the parser"},
		{"ESC backslash", "\x1b]2;⠋ Working\x1b\\", "⠋ Working"},
		{"8-bit ST", "\x1b]2;plain\x9c", "plain"},
		{"0x9C inside UTF-8 then 8-bit ST", "\x1b]0;✳ done\x9c", "✳ done"},
		{"ESC ends and starts a sequence", "\x1b]0;abc\x1b[31mX", "abc"},
		{"CAN aborts", "\x1b]0;old\x07\x1b]0;new\x18", "old"},
	}
	for _, c := range cases {
		for _, split := range []bool{false, true} {
			e := New(20, 3, Options{})
			if split {
				for i := 0; i < len(c.in); i++ {
					e.Write([]byte{c.in[i]})
				}
			} else {
				e.Write([]byte(c.in))
			}
			if got := e.Snapshot().Title; got != c.want {
				t.Errorf("%s (split %v): title %q, want %q", c.name, split, got, c.want)
			}
		}
	}
	// Text after an OSC prints normally, and the ESC-terminated case kept
	// its SGR: X is red.
	e := New(20, 3, Options{})
	e.Write([]byte("\x1b]0;✳ t\x07hi\x1b]0;x\x1b[31mX"))
	s := e.Snapshot()
	if s.Lines()[0] != "hiX" {
		t.Fatalf("line %q", s.Lines()[0])
	}
	if s.Cells[0][2].Style.Fg == nil {
		t.Fatal("SGR after an ESC-terminated OSC was lost")
	}
}
