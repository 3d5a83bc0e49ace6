package supervisor

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// A subscriber connecting after the child printed A gets A from the
// scrollback, then B (printed after it subscribed) live: in order, once each.
func TestReplayThenLive(t *testing.T) {
	g := newGate(t)
	s := startServed(t, Config{Argv: []string{"sh", "-c",
		"echo alpha-1; " + g.Wait() + "; echo bravo-2"}})
	waitFor(t, "alpha-1 in the scrollback", 10*time.Second, func() bool {
		return bytes.Contains(scrollback(s.sess), []byte("alpha-1"))
	})

	c := dial(t, s.sock)
	got := subscribeSync(t, c) // the subscription is registered: B will be live
	g.Open(t)
	out, code := readUntilExit(t, c, 10*time.Second)
	got = append(got, out...)
	if want := "alpha-1\r\nbravo-2\r\n"; string(got) != want || code != 0 {
		t.Fatalf("subscriber got %q (code %d), want %q (code 0)", got, code, want)
	}
}

// seqOutput is what `seq 1 n` looks like through a pty.
func seqOutput(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\r\n", i)
	}
	return b.String()
}

// A child that wrote more than ScrollbackBytes replays exactly the last
// ScrollbackBytes bytes, on the wire and through Session.Subscribe.
func TestReplayIsLastScrollbackBytes(t *testing.T) {
	const size = 1000
	g1, g2 := newGate(t), newGate(t)
	s := startServed(t, Config{
		Argv:            []string{"sh", "-c", g1.Wait() + "; seq 1 3000; " + g2.Wait()},
		ScrollbackBytes: size,
	})
	var all collector
	defer s.sess.AddListener(all.add)()
	g1.Open(t)
	want := seqOutput(3000)
	waitFor(t, "seq output", 10*time.Second, func() bool { return len(all.bytes()) >= len(want) })
	if got := string(all.bytes()); got != want {
		t.Fatalf("listener got %d bytes, want %d", len(got), len(want))
	}
	tailWant := want[len(want)-size:]

	if sb := string(scrollback(s.sess)); sb != tailWant {
		t.Fatalf("Session.Subscribe replay: %d bytes %q..., want the last %d bytes", len(sb), tail([]byte(sb)), size)
	}

	c := dial(t, s.sock)
	got := subscribeSync(t, c)
	g2.Open(t)
	out, code := readUntilExit(t, c, 10*time.Second)
	got = append(got, out...)
	if string(got) != tailWant || code != 0 {
		t.Fatalf("wire replay: %d bytes (code %d), want exactly the last %d bytes\ngot  ...%q\nwant ...%q",
			len(got), code, size, tail(got), tail([]byte(tailWant)))
	}
}

// Subscribers joining at random moments of a long burst each see a
// contiguous suffix of the full output: replay and live join with no gap or
// duplicate, even as the ring wraps.
func TestLateSubscribersSeeSuffix(t *testing.T) {
	g := newGate(t)
	s := startServed(t, Config{
		// 100 bursts of 1000 lines, ≥ 1 s in all: the late subscribers
		// join while it runs.
		Argv: []string{"sh", "-c", g.Wait() + `; i=0; while [ $i -lt 100 ]; do
			seq $((i*1000+1)) $((i*1000+1000)); i=$((i+1)); sleep 0.01; done`},
		ScrollbackBytes: 4096,
	}, withQueueBytes(1<<28)) // nothing dropped however slow the test runs

	first := dial(t, s.sock)
	head := subscribeSync(t, first)
	g.Open(t)

	const late = 4
	outs := make([][]byte, late)
	var wg sync.WaitGroup
	for i := range late {
		// Join while the burst is under way.
		time.Sleep(time.Duration(50+100*i) * time.Millisecond)
		c := dial(t, s.sock)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Subscribe(); err != nil {
				t.Error(err)
				return
			}
			out, code := readUntilExit(t, c, 30*time.Second)
			if code != 0 {
				t.Errorf("late subscriber %d: code %d", i, code)
			}
			outs[i] = out
		}()
	}
	out, code := readUntilExit(t, first, 30*time.Second)
	wg.Wait()
	full := append(head, out...)
	if want := seqOutput(100000); string(full) != want || code != 0 {
		t.Fatalf("first subscriber: %d bytes code %d, want %d bytes code 0", len(full), code, len(want))
	}
	live := 0
	for i, o := range outs {
		if len(o) == 0 || !bytes.HasSuffix(full, o) {
			t.Errorf("late subscriber %d: %d bytes are not a suffix of the output (starts %q)", i, len(o), o[:min(len(o), 40)])
		}
		if len(o) > 4096 {
			live++ // got more than the ring holds: it joined mid-burst
		}
	}
	if live == 0 {
		t.Errorf("no late subscriber joined during the burst (sizes %d %d %d %d)", len(outs[0]), len(outs[1]), len(outs[2]), len(outs[3]))
	}
}

// Three subscribers reading at once get identical, complete output and EXIT.
func TestThreeSubscribersIdentical(t *testing.T) {
	g := newGate(t)
	s := startServed(t, Config{Argv: []string{"sh", "-c", g.Wait() + "; seq 1 30000; exit 5"}},
		withQueueBytes(1<<28))
	cs := make([]*frame.Client, 3)
	heads := make([][]byte, 3)
	for i := range cs {
		cs[i] = dial(t, s.sock)
		heads[i] = subscribeSync(t, cs[i])
	}
	g.Open(t)
	outs := make([][]byte, 3)
	codes := make([]int, 3)
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, code := readUntilExit(t, c, 30*time.Second)
			outs[i], codes[i] = append(heads[i], out...), code
		}()
	}
	wg.Wait()
	want := seqOutput(30000)
	for i := range cs {
		if string(outs[i]) != want || codes[i] != 5 {
			t.Errorf("subscriber %d: %d bytes (want %d, equal=%v), code %d (want 5)",
				i, len(outs[i]), len(want), string(outs[i]) == want, codes[i])
		}
	}
}
