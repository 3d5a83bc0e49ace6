package supervisor

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// rawConn dials sock and reads the mode byte, for clients that send bytes
// frame.Client would not.
func rawConn(t testing.TB, sock string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("unix", sock, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if err := frame.ReadMode(c); err != nil {
		t.Fatal(err)
	}
	return c
}

func header(typ byte, n uint32) []byte {
	h := []byte{typ, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(h[1:], n)
	return h
}

func mustWrite(t testing.TB, c net.Conn, p []byte) {
	t.Helper()
	if _, err := c.Write(p); err != nil {
		t.Fatal(err)
	}
}

// An oversize frame closes that connection only.
func TestOversizeFrameClosesOnlyThatConnection(t *testing.T) {
	s := startServed(t, Config{Argv: []string{"cat"}})
	sub := dial(t, s.sock)
	subscribeSync(t, sub)

	// A payload of exactly MaxPayload is fine (here: STATUS with a payload,
	// which is ignored), and the connection goes on.
	ok := rawConn(t, s.sock)
	mustWrite(t, ok, header(byte(frame.Status), frame.MaxPayload))
	mustWrite(t, ok, make([]byte, frame.MaxPayload))
	mustWrite(t, ok, header(byte(frame.Status), 0))
	f, err := frame.NewReader(ok).Next()
	if err != nil || f.Type != frame.StatusResp {
		t.Fatalf("after a MaxPayload frame: %v %v, want STATUS_RESP", f.Type, err)
	}

	bad := rawConn(t, s.sock)
	mustWrite(t, bad, header(byte(frame.Input), frame.MaxPayload+1))
	var b [1]byte
	if n, err := bad.Read(b[:]); !errors.Is(err, io.EOF) {
		t.Fatalf("oversize sender: read %d bytes, err %v; want EOF", n, err)
	}

	// The subscriber still gets live output, and the session still runs.
	in := dial(t, s.sock)
	if err := in.Input([]byte("still-here\n")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, sub, "still-here\r\nstill-here\r\n", 10*time.Second)
	if st := statusOf(t, s.sock); !st.Alive || int(st.PID) != s.sess.PID() {
		t.Fatalf("status after oversize frame: %+v", st)
	}
}

// Fifty clients misbehaving in assorted ways, quickly, one after another:
// the session, its subscribers and STATUS are unaffected, and nothing kills
// it.
func TestRapidMisbehavingClients(t *testing.T) {
	s := startServed(t, Config{Argv: []string{"cat"}})
	sub := dial(t, s.sock)
	subscribeSync(t, sub)

	for i := range 50 {
		var err error
		switch i % 10 {
		case 0: // connect and hang up at once, without reading the mode byte
			var c net.Conn
			if c, err = net.Dial("unix", s.sock); err == nil {
				c.Close()
			}
		case 1: // half a header
			c := rawConn(t, s.sock)
			mustWrite(t, c, []byte{byte(frame.Status), 0, 0})
			c.Close()
		case 2: // a header, then part of its payload
			c := rawConn(t, s.sock)
			mustWrite(t, c, append(header(byte(frame.Input), 100), "partial"...))
			c.Close()
		case 3: // an unknown type with a payload, then a valid STATUS
			c := rawConn(t, s.sock)
			mustWrite(t, c, append(header(0x7f, 3), "abc"...))
			mustWrite(t, c, header(byte(frame.Status), 0))
			err = expectStatus(c)
			c.Close()
		case 4: // STATUS with a payload is answered like an empty one (hm)
			c := rawConn(t, s.sock)
			mustWrite(t, c, append(header(byte(frame.Status), 2), "xx"...))
			mustWrite(t, c, header(byte(frame.Status), 0))
			// Both replies, read with one reader (it buffers).
			r := frame.NewReader(c)
			for range 2 {
				var f frame.Frame
				if f, err = r.Next(); err == nil && f.Type != frame.StatusResp {
					err = fmt.Errorf("got %v, want STATUS_RESP", f.Type)
				}
				if err != nil {
					break
				}
			}
			c.Close()
		case 5: // an unknown type with an empty payload, then a valid STATUS
			c := rawConn(t, s.sock)
			mustWrite(t, c, header(0x5f, 0)) // no extension uses 0x5f
			mustWrite(t, c, header(byte(frame.Status), 0))
			err = expectStatus(c)
			c.Close()
		case 6: // subscribe and leave at once
			c := rawConn(t, s.sock)
			mustWrite(t, c, header(byte(frame.Subscribe), 0))
			c.Close()
		case 7: // a malformed RESIZE
			c := rawConn(t, s.sock)
			mustWrite(t, c, append(header(byte(frame.Resize), 3), 1, 2, 3))
			mustWrite(t, c, header(byte(frame.Status), 0))
			err = expectStatus(c)
			c.Close()
		case 8: // oversize
			c := rawConn(t, s.sock)
			mustWrite(t, c, header(byte(frame.Output), 0xffffffff))
			c.Close()
		case 9: // a server-to-client type sent to the server
			c := rawConn(t, s.sock)
			mustWrite(t, c, append(header(byte(frame.Exit), 4), 0, 0, 0, 9))
			mustWrite(t, c, header(byte(frame.Status), 0))
			err = expectStatus(c)
			c.Close()
		}
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}

	st := statusOf(t, s.sock)
	if !st.Alive || int(st.PID) != s.sess.PID() {
		t.Fatalf("status: %+v", st)
	}
	if err := syscall.Kill(s.sess.PID(), 0); err != nil {
		t.Fatalf("child: %v", err)
	}
	if s.sess.proc.Stopped() {
		t.Fatal("a misbehaving client killed the session")
	}
	// The subscriber is still fed.
	in := dial(t, s.sock)
	if err := in.Input([]byte("after-50\n")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, sub, "after-50\r\nafter-50\r\n", 10*time.Second)
	// And every misbehaving connection has been cleaned up.
	waitFor(t, "the server to drop the closed connections", 10*time.Second, func() bool {
		s.srv.mu.Lock()
		defer s.srv.mu.Unlock()
		return len(s.srv.conns) == 2 // sub and in
	})
}

// expectStatus reads one frame from c and checks that it is a STATUS_RESP
// for a live child.
func expectStatus(c net.Conn) error {
	f, err := frame.NewReader(c).Next()
	if err != nil {
		return err
	}
	if f.Type != frame.StatusResp {
		return fmt.Errorf("got %v, want STATUS_RESP", f.Type)
	}
	var st frame.StatusInfo
	if err := st.UnmarshalBinary(f.Payload); err != nil {
		return err
	}
	if !st.Alive {
		return fmt.Errorf("status says the child is dead: %+v", st)
	}
	return nil
}

// Shutdown honours its context even while a connection is stuck writing
// INPUT to a raw-mode child that never reads it (a pty write blocks once the
// tty's input buffer is full).
func TestShutdownHonoursContext(t *testing.T) {
	s := startServed(t, Config{Argv: []string{"sh", "-c", "stty raw -echo; echo ready; sleep 1000"}})
	sub := dial(t, s.sock)
	if !strings.Contains(string(subscribeSync(t, sub)), "ready") {
		readUntil(t, sub, "ready", 10*time.Second)
	}
	c := dial(t, s.sock)
	big := make([]byte, frame.MaxPayload)
	for i := range big {
		big[i] = 'x'
	}
	if err := c.Input(big); err != nil {
		t.Fatal(err)
	}
	// The sender's connection is now parked in the pty write: a STATUS on
	// it gets no answer, while other connections are served.
	if err := c.Send(frame.Status, nil); err != nil {
		t.Fatal(err)
	}
	c.Conn().SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if f, err := c.Next(); err == nil {
		t.Skipf("the pty took 1 MiB of input without blocking (got %v)", f.Type)
	}
	if st := statusOf(t, s.sock); !st.Alive {
		t.Fatalf("status %+v", st)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	res := make(chan error, 1)
	go func() { res <- s.srv.Shutdown(ctx) }()
	select {
	case err := <-res:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Shutdown: %v, want DeadlineExceeded", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Shutdown did not return 5 s after its 200 ms context ended")
	}
}
