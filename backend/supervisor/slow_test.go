package supervisor

import (
	"bytes"
	"errors"
	"net"
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
		Argv: []string{"sh", "-c", g.Wait() + "; head -c 20000000 /dev/zero | tr '\\0' x; exit 4"},
	}, withQueueBytes(16<<10))
	readerSock := serveAgain(t, s.sess, 1<<28) // 256 MiB > 20 MB

	stalled := dial(t, s.sock)
	subscribeSync(t, stalled) // subscribed, and never read from again
	reader := dial(t, readerSock)
	head := subscribeSync(t, reader)

	start := time.Now()
	g.Open(t)
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
		if c.q != nil {
			dropped += c.q.Dropped()
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
	s := startSession(t, Config{Argv: []string{"sh", "-c", g.Wait() + "; seq 1 50000"}})
	_, stuck := s.Subscribe(2)
	defer stuck.Close()
	_, drained := s.Subscribe(1 << 14)
	defer drained.Close()
	var all collector
	defer s.AddListener(all.add)()
	g.Open(t)

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

// Replies on a subscribed connection share its stream with output that the
// pty reader writes directly: under a flood, every STATUS_RESP arrives
// whole and every output byte arrives once, in order.
func TestRepliesInterleaveWithOutputWhole(t *testing.T) {
	const total, asks = 4_000_000, 200
	g := newGate(t)
	s := startServed(t, Config{
		Argv: []string{"sh", "-c", g.Wait() + "; head -c 4000000 /dev/zero | tr '\\0' x"},
	}, withQueueBytes(1<<28))
	c := dial(t, s.sock)
	subscribeSync(t, c)
	g.Open(t)
	go func() {
		for i := 0; i < asks; i++ {
			if c.Send(frame.Status, nil) != nil {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	c.Conn().SetReadDeadline(time.Now().Add(30 * time.Second))
	n, replies := 0, 0
	for {
		f, err := c.Next()
		if err != nil {
			t.Fatalf("after %d bytes, %d replies: %v", n, replies, err)
		}
		switch f.Type {
		case frame.Output:
			if i := bytes.IndexFunc(f.Payload, func(r rune) bool { return r != 'x' }); i >= 0 {
				t.Fatalf("byte %q at %d: frames interleaved", f.Payload[i], n+i)
			}
			n += len(f.Payload)
		case frame.StatusResp:
			var st frame.StatusInfo
			if err := st.UnmarshalBinary(f.Payload); err != nil || st.PID != uint32(s.sess.PID()) {
				t.Fatalf("reply %d: %+v %v", replies, st, err)
			}
			replies++
		case frame.Exit:
			if n != total {
				t.Fatalf("got %d output bytes, want %d", n, total)
			}
			if replies == 0 {
				t.Fatal("no STATUS_RESP arrived")
			}
			return
		default:
			t.Fatalf("unexpected frame %v", f.Type)
		}
	}
}

// A subscriber that shows the stream on a screen (ATTACH: a terminal) and
// missed output gets a repaint of the screen once it reads again, so what
// it shows ends right; a plain SUBSCRIBE just misses the output, as hm's
// subscribers do.
func TestDroppedOutputRepaintsAnAttachedTerminal(t *testing.T) {
	g := newGate(t)
	s := startServed(t, Config{
		Argv: []string{"sh", "-c", g.Wait() + "; head -c 3000000 /dev/zero | tr '\\0' x; printf 'END-%s\\n' MARK; exec sleep 60"},
	}, withQueueBytes(16<<10))
	plain := dial(t, s.sock)
	subscribeSync(t, plain)
	attached := dial(t, s.sock)
	subscribeSync(t, attached)
	if err := attached.Send(frame.Attach, nil); err != nil {
		t.Fatal(err)
	}
	g.Open(t)
	// Neither reads until the flood and the mark are out: output is
	// dropped for both.
	waitFor(t, "the mark in the scrollback", 30*time.Second, func() bool {
		return bytes.Contains(scrollback(s.sess), []byte("END-MARK"))
	})
	// Output was dropped for it: a repaint (it starts with RIS) comes
	// once it has read what its queue held, and shows the mark.
	out := readUntil(t, attached, "\x1bc", 30*time.Second)
	if repaint := out[bytes.LastIndex(out, []byte("\x1bc")):]; !bytes.Contains(repaint, []byte("END-MARK")) {
		readUntil(t, attached, "END-MARK", 30*time.Second)
	}

	// The plain subscriber gets what its queue held (the mark too, if a
	// write had just emptied it) and then nothing: no repaint.
	var got bytes.Buffer
	for {
		plain.Conn().SetReadDeadline(time.Now().Add(time.Second))
		f, err := plain.Next()
		if err != nil {
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				t.Fatal(err)
			}
			break
		}
		if f.Type == frame.Output {
			got.Write(f.Payload)
		}
	}
	if bytes.Contains(got.Bytes(), []byte("\x1bc")) {
		t.Fatalf("a plain subscriber that missed output got a repaint: %q", tail(got.Bytes()))
	}
}
