package layout

import "testing"

func TestVisibleRange(t *testing.T) {
	cases := []struct{ n, sel, off, rows, want int }{
		{10, 0, 0, 4, 0},
		{10, 4, 0, 4, 1}, // rows 1..4
		{10, 9, 0, 4, 6},
		{10, 2, 6, 4, 2},
		{10, 5, 3, 4, 3}, // already visible: unchanged
		{3, 2, 5, 9, 0},  // everything fits
		{10, 9, 9, 4, 6}, // never past the end
		{0, 0, 4, 4, 0},
		{5, 3, 0, 1, 3},
		{5, 3, 2, 0, 0},
	}
	for _, c := range cases {
		if got := VisibleRange(c.n, c.sel, c.off, c.rows); got != c.want {
			t.Errorf("VisibleRange(%d, %d, %d, %d) = %d, want %d", c.n, c.sel, c.off, c.rows, got, c.want)
		}
	}
}
