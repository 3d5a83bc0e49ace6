package supervisor

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The session's screen is what a terminal shows after the output, whether
// the emulator kept up or fell behind and was rebuilt from the ring.
func TestScreenFollowsOutput(t *testing.T) {
	want := make([]string, 0, 24)
	for i := 19979; i <= 20000; i++ {
		want = append(want, fmt.Sprint(i))
	}
	want = append(want, "END", "")
	for _, forceRebuild := range []bool{false, true} {
		t.Run(fmt.Sprintf("rebuild=%v", forceRebuild), func(t *testing.T) {
			if forceRebuild {
				old := screenBacklog
				screenBacklog = 1 // every chunk overflows: rebuild from the ring
				t.Cleanup(func() { screenBacklog = old })
			}
			g := newGate(t)
			s := startSession(t, Config{Argv: []string{"sh", "-c", g.wait() + "; seq 1 20000; echo END; exec sleep 30"}, Cols: 80, Rows: 24})
			g.open(t)
			waitFor(t, "END on the screen", 10*time.Second, func() bool {
				return strings.Contains(s.Screen().Text(), "END")
			})
			got := s.Screen().Lines()
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("screen:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if r := s.scr.Resets(); forceRebuild != (r > 0) {
				t.Fatalf("resets = %d with forceRebuild %v", r, forceRebuild)
			}
		})
	}
}

// Resize reaches the emulator: the snapshot takes the new size.
func TestScreenResize(t *testing.T) {
	s := startSession(t, Config{Argv: []string{"sh", "-c", "echo ready; exec sleep 30"}, Cols: 80, Rows: 24})
	waitFor(t, "ready", 10*time.Second, func() bool { return strings.Contains(s.Screen().Text(), "ready") })
	if err := s.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "100x30 screen", 10*time.Second, func() bool {
		sn := s.Screen()
		return sn.Cols == 100 && sn.Rows == 30
	})
}
