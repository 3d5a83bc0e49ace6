package supervisor

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/vt"
)

// flood is a script that draws as a busy program does until gate g opens:
// numbered lines in colours, with wide characters, hyperlinks and curly
// underlines, scrolling in a region under a status line it redraws in
// place (saving and restoring the cursor); then it writes END, hides the
// cursor and runs tail.
func flood(g gate, rows int, tail string) []string {
	return []string{"sh", "-c", fmt.Sprintf(`printf '\033]0;flood\007\033[2;%dr\033[%d;1H'
i=0
while [ ! -e %s ]; do
  printf '\033[3%%dm%%05d\033[m 中文 \033]8;;http://x/%%d\033\\link\033]8;;\033\\ \033[1;4:3mtext\033[m\r\n' $((i%%8)) $i $i
  if [ $((i%%16)) -eq 0 ]; then printf '\033[s\033[1;1H\033[44m status %%d \033[K\033[m\033[u' $i; fi
  i=$((i+1))
done
printf 'END\033[?25l'
%s`, rows, rows, g.Path(), tail)}
}

// sameScreens reports whether two snapshots show the same screen: cells,
// cursor, title and modes (Seq aside).
func sameScreens(a, b *vt.Snapshot) bool {
	x, y := *a, *b
	x.Seq, y.Seq = 0, 0
	return reflect.DeepEqual(x, y)
}

// Listeners added one after another while a program floods its terminal,
// each given a repaint and the output after it, draw the session's final
// screen on emulators of their own.
func TestListenScreenWhilePrinting(t *testing.T) {
	g := newGate(t)
	const cols, rows = 60, 12
	sess := startSession(t, Config{Argv: flood(g, rows, "exit 3"), Cols: cols, Rows: rows})
	waitFor(t, "the flood", 10*time.Second, func() bool { return strings.Contains(sess.Screen().Text(), "status") })
	var cs [3]collector
	for i := range cs {
		if i > 0 {
			waitFor(t, "more output", 10*time.Second, func() bool { return len(cs[i-1].bytes()) > 20000 })
		}
		defer sess.ListenScreen(cs[i].add)()
	}
	waitFor(t, "more output", 10*time.Second, func() bool { return len(cs[2].bytes()) > 20000 })
	g.Open(t)
	if code := waitDone(t, sess, 20*time.Second); code != 3 {
		t.Fatalf("exit code %d", code)
	}
	want := sess.Screen()
	if !strings.Contains(want.Text(), "END") {
		t.Fatalf("the session's screen has no END:\n%s", want.Text())
	}
	for i := range cs {
		got := cs[i].bytes()
		if !bytes.HasPrefix(got, []byte("\x1bc")) {
			t.Fatalf("listener %d: the first chunk is not a repaint: %q", i, tail(got))
		}
		sameSnapshots(t, fmt.Sprintf("listener %d", i), want, viewer(cols, rows, got).Snapshot())
	}
}

// Listeners added while cat floods the terminal with a file dense with
// escape sequences (truecolour for every character), so that a chunk often
// ends in the middle of one: each one's repaint is taken where the parser
// settles, and the chunks it shows already are not given again. The text
// wraps without line breaks, so a chunk given twice, or lost, shifts the
// whole final screen.
func TestListenScreenMidSequence(t *testing.T) {
	var b strings.Builder
	for i := range 1500 {
		fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%dm%c", i%256, i%7*30, i%251, 'a'+rune(i%26))
	}
	file := filepath.Join(shortDir(t), "f")
	if err := os.WriteFile(file, []byte(b.String()+"|"), 0o600); err != nil {
		t.Fatal(err)
	}
	g := newGate(t)
	const cols, rows = 40, 8
	sess := startSession(t, Config{Argv: []string{"sh", "-c", fmt.Sprintf("until [ -e %s ]; do cat %s; done; printf END", g.Path(), file)},
		Cols: cols, Rows: rows})
	cs := make([]*collector, 6)
	for i := range cs {
		waitFor(t, "more output", 10*time.Second, func() bool { return i == 0 || len(cs[i-1].bytes()) > 10000 })
		cs[i] = new(collector)
		defer sess.ListenScreen(cs[i].add)()
	}
	g.Open(t)
	waitDone(t, sess, 20*time.Second)
	want := sess.Screen()
	for i, c := range cs {
		sameSnapshots(t, fmt.Sprintf("listener %d", i), want, viewer(cols, rows, c.bytes()).Snapshot())
	}
}

// A listener added after the session exited gets the final screen (here
// the alternate one, left active), at once, in one call.
func TestListenScreenAfterExit(t *testing.T) {
	sess := startSession(t, Config{Argv: []string{"sh", "-c", `printf 'main\033[?1049h\033[31mfinal\033[4;3H'`}, Cols: 20, Rows: 6})
	waitDone(t, sess, 10*time.Second)
	var c collector
	defer sess.ListenScreen(c.add)()
	if c.calls() != 1 {
		t.Fatalf("%d calls before ListenScreen returned, want 1", c.calls())
	}
	sameSnapshots(t, "final screen", sess.Screen(), viewer(20, 6, c.bytes()).Snapshot())
}

// A listener removed before its repaint was taken gets nothing.
func TestListenScreenRemoved(t *testing.T) {
	g := newGate(t)
	sess := startSession(t, Config{Argv: []string{"sh", "-c", g.Wait() + "; echo late"}})
	release := holdSlots(t, cap(emuSlots)) // the feeder cannot take the repaint
	var c collector
	remove := sess.ListenScreen(c.add)
	remove()
	release()
	g.Open(t)
	waitDone(t, sess, 10*time.Second)
	if n := c.calls(); n != 0 {
		t.Fatalf("a removed listener was called %d times: %q", n, c.bytes())
	}
}

// screenListener in each order the feeder and the reader can call it: the
// repaint first, then the chunks after the skipped ones, whether those
// came before the repaint was taken (held) or come after it.
func TestScreenListenerOrder(t *testing.T) {
	for _, c := range []struct {
		name    string
		before  []string // chunks the reader gives before the repaint
		skipped int
		after   []string // and after
		want    string
	}{
		{"nothing skipped", []string{"a", "b"}, 0, []string{"c"}, "R|a|b|c"},
		{"skipped among the held", []string{"a", "b"}, 1, []string{"c"}, "R|b|c"},
		{"skipped not come yet", []string{"a"}, 3, []string{"b", "c", "d"}, "R|d"},
	} {
		var got []string
		l := &screenListener{fn: func(p []byte) { got = append(got, string(p)) }}
		for _, s := range c.before {
			l.output([]byte(s))
		}
		l.repaint([]byte("R"), c.skipped)
		for _, s := range c.after {
			l.output([]byte(s))
		}
		if g := strings.Join(got, "|"); g != c.want {
			t.Errorf("%s: fn got %q, want %q", c.name, g, c.want)
		}
	}
	var calls int
	l := &screenListener{fn: func([]byte) { calls++ }}
	l.output([]byte("a"))
	l.remove()
	l.repaint([]byte("R"), 0)
	l.output([]byte("b"))
	if calls != 0 {
		t.Fatalf("a removed listener was called %d times", calls)
	}
}
