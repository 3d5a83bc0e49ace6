package supervisor

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/vt"
)

// sameSnapshots fails t unless want and got show the same screen: cells,
// cursor, title and modes (Seq aside).
func sameSnapshots(t testing.TB, what string, want, got *vt.Snapshot) {
	t.Helper()
	w, g := *want, *got
	w.Seq, g.Seq = 0, 0
	if !reflect.DeepEqual(w, g) {
		t.Fatalf("%s: screens differ\nwant %dx%d %+v %q %+v\n%s\ngot  %dx%d %+v %q %+v\n%s", what,
			w.Cols, w.Rows, w.Cursor, w.Title, w.Modes, w.Text(), g.Cols, g.Rows, g.Cursor, g.Title, g.Modes, g.Text())
	}
}

// viewer returns a fresh cols x rows emulator with the chunks written to
// it: what a client sees after a repaint and the output after it.
func viewer(cols, rows int, chunks ...[]byte) *vt.Emulator {
	v := vt.New(cols, rows, vt.Options{})
	for _, c := range chunks {
		v.Write(c)
	}
	return v
}

// repaintAt records one Feeder.Repaint: its repaint, skipped, and the
// chunks pushed after it.
type repaintAt struct {
	mu      sync.Mutex
	repaint []byte
	skipped int
	taken   chan struct{}
	after   [][]byte
}

// repaintHere asks f for a repaint at the end of what was pushed so far.
func repaintHere(f *Feeder) *repaintAt {
	r := &repaintAt{taken: make(chan struct{})}
	f.Repaint(r.take)
	return r
}

// startFeeder starts a Feeder of a fresh cols x rows emulator.
func startFeeder(cols, rows int) (*vt.Emulator, *Feeder) {
	emu := vt.New(cols, rows, vt.Options{})
	f := NewFeeder(emu, nil)
	f.Start()
	return emu, f
}

func (r *repaintAt) take(b []byte, skipped int) {
	r.mu.Lock()
	r.repaint, r.skipped = b, skipped
	r.mu.Unlock()
	close(r.taken)
}

// shown is what a client shows from the repaint and the chunks after it,
// the first skipped dropped.
func (r *repaintAt) shown(t testing.TB, cols, rows int) *vt.Emulator {
	t.Helper()
	select {
	case <-r.taken:
	case <-time.After(10 * time.Second):
		t.Fatal("the repaint was never taken")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.skipped > len(r.after) {
		t.Fatalf("skipped %d of %d chunks", r.skipped, len(r.after))
	}
	return viewer(cols, rows, append([][]byte{r.repaint}, r.after[r.skipped:]...)...)
}

// A repaint is taken where it was asked for: a fresh emulator given it
// and the chunks pushed after it ends up as the Feeder's.
func TestFeederRepaintAtItsPosition(t *testing.T) {
	emu, f := startFeeder(20, 3)
	f.Push([]byte("one\r\n\x1b[1;31mred "))
	r := repaintHere(f)
	r.after = [][]byte{[]byte("two\x1b[m\r\nthree")}
	f.Push(r.after[0])
	f.Close()
	if r.shown(t, 20, 3); r.skipped != 0 {
		t.Fatalf("skipped %d chunks at a settled point", r.skipped)
	}
	sameSnapshots(t, "repaint + rest", emu.Snapshot(), r.shown(t, 20, 3).Snapshot())
}

// Asked for in the middle of an escape sequence, the repaint is taken
// after the chunk that ends it, and that chunk is counted as skipped.
func TestFeederRepaintWaitsForSettled(t *testing.T) {
	emu, f := startFeeder(20, 3)
	f.Push([]byte("a\x1b[3"))
	r := repaintHere(f)
	r.after = [][]byte{[]byte("1mb"), []byte("c\x1b[0md")}
	for _, c := range r.after {
		f.Push(c)
	}
	f.Close()
	shown := r.shown(t, 20, 3)
	if r.skipped != 1 {
		t.Fatalf("skipped %d chunks, want 1", r.skipped)
	}
	sameSnapshots(t, "repaint + rest", emu.Snapshot(), shown.Snapshot())
}

// A stream that stops mid-sequence does not keep the repaint back: it is
// taken as it stands once the stream has paused.
func TestFeederRepaintAfterPauseMidSequence(t *testing.T) {
	_, f := startFeeder(20, 3)
	defer f.Close()
	f.Push([]byte("x\x1b]0;a title that never ends"))
	r := repaintHere(f)
	if v := r.shown(t, 20, 3); v.Snapshot().Text() != "x" || r.skipped != 0 {
		t.Fatalf("skipped %d, shown %q", r.skipped, v.Snapshot().Text())
	}
}

// After Close a repaint is answered at once with the final screen.
func TestFeederRepaintAfterClose(t *testing.T) {
	emu, f := startFeeder(10, 2)
	f.Push([]byte("last\x1b[?25l"))
	f.Close()
	r := repaintHere(f)
	select {
	case <-r.taken:
	default:
		t.Fatal("a repaint after Close was not answered at once")
	}
	sameSnapshots(t, "final", emu.Snapshot(), r.shown(t, 10, 2).Snapshot())
}

// Recordings of real programs pushed in random chunks while the Feeder
// runs, with repaints asked for at random points (some mid-sequence): each
// repaint with the chunks after it (less the skipped) draws the Feeder's
// final screen.
func TestFeederRepaintsRecordings(t *testing.T) {
	recs, _ := filepath.Glob("../vt/testdata/*.rec")
	if len(recs) == 0 {
		t.Fatal("no ../vt/testdata/*.rec recordings")
	}
	r := rand.New(rand.NewSource(5))
	skipping := 0
	for _, rec := range recs {
		data, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		emu, f := startFeeder(80, 24)
		var rs []*repaintAt
		for len(data) > 0 {
			n := min(len(data), 1+r.Intn(400))
			chunk := data[:n:n]
			data = data[n:]
			f.Push(chunk)
			for _, ra := range rs {
				ra.after = append(ra.after, chunk)
			}
			if r.Intn(4) == 0 {
				ra := repaintHere(f)
				rs = append(rs, ra)
			}
		}
		f.Close()
		for i, ra := range rs {
			sameSnapshots(t, fmt.Sprintf("%s, repaint %d", filepath.Base(rec), i), emu.Snapshot(), ra.shown(t, 80, 24).Snapshot())
			if ra.skipped > 0 {
				skipping++
			}
		}
	}
	if skipping == 0 {
		t.Fatal("no repaint was asked for mid-sequence: the test does not exercise skipping")
	}
}
