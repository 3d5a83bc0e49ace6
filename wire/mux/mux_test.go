package mux

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// pair is a client and a server over an in-memory stream; the server's
// sessions are the conns sessions gives (nil: refused).
func pair(t *testing.T, sessions func(id string) (net.Conn, error)) (*Conn, *Conn, chan Sessions) {
	t.Helper()
	a, b := net.Pipe()
	srv := Server(b, Hello{Host: "box", Dir: "/run/x"}, sessions)
	got := make(chan Sessions, 16)
	cl, err := Client(a, func(s Sessions) { got <- s })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close(); srv.Close() })
	return cl, srv, got
}

// echo is a session that writes back what it reads.
func echo(id string) (net.Conn, error) {
	if id != "echo" && id != "echo2" {
		return nil, errors.New("no session " + id)
	}
	x, y := net.Pipe()
	go func() { io.Copy(y, y); y.Close() }()
	return x, nil
}

func TestEchoAndAnnounce(t *testing.T) {
	cl, srv, got := pair(t, echo)
	if h := cl.Hello(); h.Protocol != Protocol || h.Host != "box" || h.Dir != "/run/x" {
		t.Fatalf("hello %+v", h)
	}
	srv.Announce(Sessions{Added: []string{"echo", "echo2"}})
	if s := <-got; len(s.Added) != 2 {
		t.Fatalf("announce %+v", s)
	}
	if _, err := cl.Dial("nope"); err == nil || !strings.Contains(err.Error(), "no session nope") {
		t.Fatalf("dial nope: %v", err)
	}
	// Two channels, each several windows' worth both ways at once.
	var wg sync.WaitGroup
	for _, id := range []string{"echo", "echo2"} {
		c, err := cl.Dial(id)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]byte, 3*Window+12345)
		rand.Read(want)
		wg.Go(func() {
			go func() { c.Write(want) }()
			got := make([]byte, len(want))
			if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: echo differs (%v)", id, err)
			}
			c.Close()
		})
	}
	wg.Wait()
}

// A session that reads nothing holds up its own channel only.
func TestSlowChannelHoldsOnlyItself(t *testing.T) {
	stuck := make(chan net.Conn, 1)
	cl, _, _ := pair(t, func(id string) (net.Conn, error) {
		if id == "stuck" {
			x, y := net.Pipe() // y is never read
			stuck <- y
			return x, nil
		}
		return echo("echo")
	})
	s, err := cl.Dial("stuck")
	if err != nil {
		t.Fatal(err)
	}
	go s.Write(make([]byte, 4*Window)) // blocks once the window is spent
	e, err := cl.Dial("echo")
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Repeat([]byte("x"), 2*Window)
	go e.Write(want)
	got := make([]byte, len(want))
	e.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(e, got); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the other channel: %v", err)
	}
	(<-stuck).Close()
}

// The stream's end ends every channel; a server that closes a session's
// connection closes the client's channel after what it sent.
func TestEnds(t *testing.T) {
	cl, srv, _ := pair(t, func(id string) (net.Conn, error) {
		x, y := net.Pipe()
		go func() { y.Write([]byte("bye")); y.Close() }()
		return x, nil
	})
	c, err := cl.Dial("a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(c)
	if err != nil || string(b) != "bye" {
		t.Fatalf("read %q %v", b, err)
	}
	d, err := cl.Dial("b")
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(d)
	srv.Close()
	<-cl.Done()
	if _, err := cl.Dial("c"); !errors.Is(err, ErrClosed) {
		t.Fatalf("dial after the end: %v", err)
	}
}

// Garbage on the stream ends it with the reason, never a panic.
func TestBadStream(t *testing.T) {
	for name, raw := range map[string][]byte{
		"huge frame":     {tData, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff},
		"unknown type":   {0x7f, 0, 0, 0, 0, 0, 0, 0, 0},
		"hello not json": append([]byte{tHello, 0, 0, 0, 0, 0, 0, 0, 3}, "abc"...),
	} {
		a, b := net.Pipe()
		go func() { b.Write(raw); io.Copy(io.Discard, b) }()
		if _, err := Client(a, nil); err == nil {
			t.Errorf("%s: no error", name)
		}
		b.Close()
	}
}
