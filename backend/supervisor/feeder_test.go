package supervisor

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/vt"
)

// A Feeder applies pushes and resizes in order, observes each change once
// it is on the screen (not again while nothing changes), and applies what
// is left when done closes.
func TestFeederOrderAndObserve(t *testing.T) {
	emu := vt.New(20, 4, vt.Options{})
	var calls atomic.Int32
	var last atomic.Value // screen text at the last observe
	f := NewFeeder(emu, func(uint64) {
		calls.Add(1)
		last.Store(emu.Snapshot().Text())
	})
	f.Start()
	f.Push([]byte("one\r\n"))
	waitFor(t, "one observed", 5*time.Second, func() bool {
		s, _ := last.Load().(string)
		return strings.Contains(s, "one")
	})
	n := calls.Load()
	f.Resize(10, 3)
	f.Push([]byte("two-is-longer-than-ten"))
	f.Close()
	sn := emu.Snapshot()
	if sn.Cols != 10 || sn.Rows != 3 {
		t.Fatalf("size %dx%d, want 10x3", sn.Cols, sn.Rows)
	}
	// Written after the resize, the text wraps at 10 columns.
	if txt := sn.Text(); !strings.Contains(txt, "two-is-lon\nger-than-t\nen") {
		t.Fatalf("screen after resize:\n%s", txt)
	}
	if calls.Load() <= n {
		t.Fatal("the resize and last push were not observed")
	}
	got := calls.Load()
	f.changed() // nothing changed since: no call
	if calls.Load() != got {
		t.Fatal("observed without a change")
	}
}

// While no emulation slot is free nothing is applied and Pace holds the
// producer once more than screenPace bytes wait; freeing the slots lets
// both go on, losing nothing.
func TestFeederSharesSlotsAndPaces(t *testing.T) {
	release := holdSlots(t, cap(emuSlots))
	emu := vt.New(80, 5, vt.Options{})
	f := NewFeeder(emu, nil)
	f.Start()
	chunk := []byte(strings.Repeat("x", 64<<10))
	var pushed atomic.Int64
	produced := make(chan struct{})
	go func() {
		defer close(produced)
		for range 3 * screenPace / len(chunk) {
			f.Pace()
			f.Push(chunk)
			pushed.Add(int64(len(chunk)))
		}
		f.Push([]byte("\r\nEND"))
	}()
	// The producer stops: at most screenPace and a chunk waiting, plus the
	// batch Run took and is stuck applying (as much).
	limit := int64(2 * (screenPace + len(chunk)))
	var prev int64 = -1
	waitFor(t, "the producer to stop", 10*time.Second, func() bool {
		p := pushed.Load()
		stopped := p == prev
		prev = p
		time.Sleep(100 * time.Millisecond)
		return stopped
	})
	if prev > limit {
		t.Fatalf("pushed %d bytes with no slot free; limit %d", prev, limit)
	}
	if emu.Seq() != 0 && strings.Contains(emu.Snapshot().Text(), "x") {
		t.Fatal("applied output without a slot")
	}
	release()
	<-produced
	f.Close()
	if !strings.HasSuffix(strings.TrimRight(emu.Snapshot().Text(), "\n "), "END") {
		t.Fatalf("END not last on the screen:\n%s", emu.Snapshot().Text())
	}
}

// A Feeder that yields to its producer (YieldTo) never waits for a producer
// that waits in Pace for it: with a pace of one byte the producer waits
// after every push while the Feeder is between the slices of a batch that
// takes several, and ahead always says the producer has input. Everything
// pushed is applied and Close returns.
func TestFeederYieldsWithoutWaitingForAPacedProducer(t *testing.T) {
	old := screenPace
	screenPace = 1
	t.Cleanup(func() { screenPace = old })
	emu := vt.New(80, 24, vt.Options{})
	f := NewFeeder(emu, nil)
	var asked atomic.Int32
	f.YieldTo(func() bool { asked.Add(1); return true })
	f.Start()
	// Screens drawn from the cursor home: nothing scrolls away unseen, so a
	// chunk costs several slices (writeSlice) to apply.
	screen := "\x1b[H" + strings.Repeat(strings.Repeat("y", 79)+"\r\n", 23)
	chunk := []byte(strings.Repeat(screen, 4*writeSlice/len(screen)+1))
	produced := make(chan struct{})
	go func() {
		defer close(produced)
		for range 8 {
			f.Pace()
			f.Push(chunk)
		}
		f.Pace()
		f.Push([]byte("\x1b[2J\x1b[HEND"))
		f.Close()
	}()
	select {
	case <-produced:
	case <-time.After(20 * time.Second):
		t.Fatal("the producer and the Feeder wait for each other")
	}
	if asked.Load() == 0 {
		t.Fatal("the Feeder never asked whether the producer had input")
	}
	if txt := strings.TrimRight(emu.Snapshot().Text(), "\n "); txt != "END" {
		t.Fatalf("screen after the last push:\n%s", txt)
	}
}
