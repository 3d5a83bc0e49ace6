package supervisor

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The session's screen is what a terminal shows after the output, whether
// the emulator kept up or the reader had to wait for it at every chunk.
func TestScreenFollowsOutput(t *testing.T) {
	want := make([]string, 0, 24)
	for i := 19979; i <= 20000; i++ {
		want = append(want, fmt.Sprint(i))
	}
	want = append(want, "END", "")
	for _, forcePace := range []bool{false, true} {
		t.Run(fmt.Sprintf("pace=%v", forcePace), func(t *testing.T) {
			if forcePace {
				old := screenPace
				screenPace = 1 // the reader waits for the emulator after every chunk
				t.Cleanup(func() { screenPace = old })
			}
			g := newGate(t)
			s := startSession(t, Config{Argv: []string{"sh", "-c", g.Wait() + "; seq 1 20000; echo END; exec sleep 30"}, Cols: 80, Rows: 24})
			g.Open(t)
			waitFor(t, "END on the screen", 10*time.Second, func() bool {
				return strings.Contains(s.Screen().Text(), "END")
			})
			got := s.Screen().Lines()
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("screen:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// A session whose emulator cannot run is paced: its reader stops after
// screenPace bytes (the program then blocks on its full pty), and resumes,
// losing nothing, when emulation does. Subscribers never pace it (see the
// stalled-subscriber tests); this is the only wait the reader has.
func TestScreenPacesTheReader(t *testing.T) {
	// Hold every emulation slot: no session's feeder can apply anything.
	release := holdSlots(t, cap(emuSlots))
	defer release() // before the sessions' cleanups, which wait for their feeders
	g := newGate(t)
	s := startSession(t, Config{Argv: []string{"sh", "-c", g.Wait() + "; yes 0123456789 | head -c 5000000; echo; echo DONE; exec sleep 30"}, Cols: 80, Rows: 24})
	// Count what the reader publishes (listeners get every chunk), from
	// before the program writes anything.
	var read atomic.Int64
	_, remove := s.Listen(func(chunk []byte) { read.Add(int64(len(chunk))) })
	defer remove()
	g.Open(t)
	// The reader goes on until screenPace bytes wait, plus the batch the
	// feeder took (and is stuck applying), plus one read.
	limit := int64(2*screenPace + 2*64<<10)
	var total int64
	waitFor(t, "the reader to stop", 10*time.Second, func() bool {
		t1 := read.Load()
		stopped := t1 == total && t1 > 0
		total = t1
		time.Sleep(100 * time.Millisecond)
		return stopped
	})
	if total > limit {
		t.Fatalf("reader read %d bytes with the emulator stopped; limit %d", total, limit)
	}
	release()
	waitFor(t, "DONE on the screen", 60*time.Second, func() bool {
		return strings.Contains(s.Screen().Text(), "DONE")
	})
	if n := read.Load(); n < 5000000 {
		t.Fatalf("only %d bytes read", n)
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

// A program that floods queries (DA1) and never reads its input fills the
// pty's input with the emulator's answers; answering must then not wait,
// or that session's feeder would hold an emulation slot for good and every
// other session's screen would stop. Run with a single slot, as on a
// two-core machine.
func TestQueryFloodDoesNotStallOthers(t *testing.T) {
	// Hold all slots but one, so the two sessions share a single one.
	holdSlots(t, cap(emuSlots)-1)
	startSession(t, Config{Argv: []string{"sh", "-c", "stty raw -echo; while :; do printf '\\033[c'; done"}})
	time.Sleep(500 * time.Millisecond) // its input fills up with answers
	s := startSession(t, Config{Argv: []string{"sh", "-c", "seq 1 20000; echo END; exec sleep 30"}, Cols: 80, Rows: 24})
	waitFor(t, "END on the other session's screen", 20*time.Second, func() bool {
		return strings.Contains(s.Screen().Text(), "END")
	})
}

// A reader that waits for a slow emulator when the child exits still reads
// the end of its output: pacing does not count against the drain after
// exit.
func TestPacedReaderDrainsAfterExit(t *testing.T) {
	old := screenPace
	screenPace = 0 // the reader waits while any chunk is pending
	t.Cleanup(func() { screenPace = old })
	release := holdSlots(t, cap(emuSlots))
	defer release() // before the sessions' cleanups, which wait for their feeders
	// The feeder takes "a" and waits for a slot; "b" stays pending, so the
	// reader waits while the child writes END and exits.
	s := startSession(t, Config{Argv: []string{"sh", "-c", "printf a; sleep 0.1; printf b; sleep 0.1; printf END"}})
	time.Sleep(4 * drainAfterExit) // the child exits while the reader waits
	release()
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("no exit")
	}
	if txt := s.Screen().Text(); !strings.Contains(txt, "abEND") {
		t.Fatalf("the end of the output was lost:\n%s", txt)
	}
}
