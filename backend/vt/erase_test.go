package vt

import "testing"

// EL with a wrap pending erases nothing (the cursor is past the margin, as
// in tmux); after a cursor move it erases from the cursor again.
func TestELWithPendingWrap(t *testing.T) {
	e := New(5, 2, Options{})
	e.Write([]byte("abcde\x1b[K"))
	if got := e.Snapshot().Lines()[0]; got != "abcde" {
		t.Fatalf("EL with wrap pending erased: %q", got)
	}
	e.Write([]byte("\x1b[1;5H\x1b[K"))
	if got := e.Snapshot().Lines()[0]; got != "abcd" {
		t.Fatalf("EL at the last column: %q", got)
	}
}
