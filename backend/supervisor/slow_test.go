package supervisor

import (
	"bytes"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// A subscriber that never reads neither slows the child nor delays anyone
// else's output or EXIT; it just misses chunks.
//
// The stalled client is served by a Server with a tiny queue, so its queue
// is full almost at once and every further chunk must be dropped for it
// rather than wait; the reader is served (same session, second Server) with
// a queue that holds the whole output, so its byte count is exact however
// slowly the race detector lets the test read.
func TestStalledSubscriberDoesNotBlock(t *testing.T) {
	const total = 20_000_000
	g := newGate(t)
	s := startServed(t, Config{
		Argv: []string{"sh", "-c", g.wait() + "; head -c 20000000 /dev/zero | tr '\\0' x; exit 4"},
	}, withQueue(4))
	readerSock := serveAgain(t, s.sess, 1<<15) // 32768 chunks > 20 MB / 4 KiB

	stalled := dial(t, s.sock)
	subscribeSync(t, stalled) // subscribed, and never read from again
	reader := dial(t, readerSock)
	head := subscribeSync(t, reader)

	start := time.Now()
	g.open(t)
	reader.Conn().SetReadDeadline(time.Now().Add(30 * time.Second))
	n, code := len(head), -1000
	for code == -1000 {
		f, err := reader.Next()
		if err != nil {
			t.Fatalf("reader: %v after %d bytes", err, n)
		}
		switch f.Type {
		case frame.Output:
			if i := bytes.IndexFunc(f.Payload, func(r rune) bool { return r != 'x' }); i >= 0 {
				t.Fatalf("unexpected output byte %q at %d", f.Payload[i], n+i)
			}
			n += len(f.Payload)
		case frame.Exit:
			c, err := frame.ParseExit(f.Payload)
			if err != nil {
				t.Fatal(err)
			}
			code = int(c)
		}
	}
	elapsed := time.Since(start)
	if n != total || code != 4 {
		t.Fatalf("reader got %d bytes and EXIT %d, want %d bytes and EXIT 4", n, code, total)
	}
	select {
	case <-s.sess.Done():
	default:
		t.Fatal("EXIT arrived before the session was done")
	}
	t.Logf("20 MB with a stalled subscriber: %v (%.1f MB/s)", elapsed, total/elapsed.Seconds()/1e6)

	// The stalled subscriber missed output rather than holding anyone up.
	var dropped uint64
	s.srv.mu.Lock()
	for c := range s.srv.conns {
		c.smu.Lock()
		if c.sub != nil {
			dropped += c.sub.Dropped()
		}
		c.smu.Unlock()
	}
	s.srv.mu.Unlock()
	if dropped == 0 {
		t.Fatal("the stalled subscriber dropped nothing")
	}

	// Once it reads again it gets what its queue held, then EXIT.
	out, code := readUntilExit(t, stalled, 30*time.Second)
	if code != 4 || len(out) >= total {
		t.Fatalf("stalled subscriber: %d bytes, EXIT %d; want fewer than %d bytes and EXIT 4", len(out), code, total)
	}
}

// Session API: a subscription nobody drains drops chunks (and counts them)
// while another, drained subscription and a listener get every byte.
func TestSubscriptionDrops(t *testing.T) {
	g := newGate(t)
	s := startSession(t, Config{Argv: []string{"sh", "-c", g.wait() + "; seq 1 50000"}})
	_, stuck := s.Subscribe(2)
	defer stuck.Close()
	_, drained := s.Subscribe(1 << 14)
	defer drained.Close()
	var all collector
	defer s.AddListener(all.add)()
	g.open(t)

	var got bytes.Buffer
	timeout := time.After(30 * time.Second)
loop:
	for {
		select {
		case p := <-drained.C():
			got.Write(p)
		case <-s.Done():
			for {
				select {
				case p := <-drained.C():
					got.Write(p)
				default:
					break loop
				}
			}
		case <-timeout:
			t.Fatal("session not done")
		}
	}
	want := seqOutput(50000)
	if got.String() != want || string(all.bytes()) != want {
		t.Fatalf("drained subscription %d bytes, listener %d bytes, want %d", got.Len(), len(all.bytes()), len(want))
	}
	if drained.Dropped() != 0 {
		t.Fatalf("drained subscription dropped %d chunks", drained.Dropped())
	}
	if stuck.Dropped() == 0 || len(stuck.C()) != 2 {
		t.Fatalf("stuck subscription: dropped %d, queued %d; want drops and a full queue of 2", stuck.Dropped(), len(stuck.C()))
	}
	// What it kept are the first two chunks, in order.
	first := append(<-stuck.C(), <-stuck.C()...)
	if !bytes.HasPrefix([]byte(want), first) {
		t.Fatalf("stuck subscription kept %q, not the start of the output", first)
	}
	if all.calls() != 2+int(stuck.Dropped()) {
		t.Fatalf("listener saw %d chunks; the stuck queue kept 2 and dropped %d", all.calls(), stuck.Dropped())
	}
}
