package shapetest

import "testing"

func TestProblem(t *testing.T) {
	for _, c := range []struct {
		s    string
		w, h int
		ok   bool
	}{
		{"ab\ncd", 2, 2, true},
		{"\x1b[1mab\x1b[m\n中", 2, 2, true},
		{"", 3, 0, true},
		{"x", 1, 0, false},
		{"ab\ncd", 2, 3, false},
		{"ab\nc", 2, 2, false},
		{"ab\ncde", 2, 2, false},
	} {
		if got := Problem(c.s, c.w, c.h); (got == "") != c.ok {
			t.Errorf("Problem(%q, %d, %d) = %q", c.s, c.w, c.h, got)
		}
	}
}
