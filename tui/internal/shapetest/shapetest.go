// Package shapetest checks the one contract every renderer in tui/ shares:
// its output is exactly h lines of exactly w cells.
package shapetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
)

// Problem returns "" when s is exactly h lines of exactly w cells each
// (empty when h <= 0), else what is wrong.
func Problem(s string, w, h int) string {
	if h <= 0 {
		if s != "" {
			return fmt.Sprintf("want empty output, got %q", s)
		}
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		return fmt.Sprintf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if got := cellwidth.Of(l); got != w {
			return fmt.Sprintf("line %d is %d cells wide, want %d: %q", i, got, w, l)
		}
	}
	return ""
}

// Check stops the test when s is not exactly w×h (see Problem).
func Check(t testing.TB, s string, w, h int) {
	t.Helper()
	if p := Problem(s, w, h); p != "" {
		t.Fatalf("%dx%d: %s", w, h, p)
	}
}
