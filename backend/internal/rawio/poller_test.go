package rawio

import (
	"bytes"
	"io"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func nonblockPipe(t *testing.T) (r, w int) {
	t.Helper()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
	return p[0], p[1]
}

// A read Poller waits for input; a write Poller waits for room (a full
// pipe) and writes all once there is some; Close ends a waiting Read.
func TestPoller(t *testing.T) {
	r, w := nonblockPipe(t)
	rd, err := NewReadPoller(r)
	if err != nil {
		t.Fatal(err)
	}
	wr, err := NewWritePoller(w)
	if err != nil {
		t.Fatal(err)
	}
	defer wr.Close()

	want := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB: far more than a pipe holds
	got := make(chan []byte)
	ended := make(chan error)
	go func() {
		var all []byte
		buf := make([]byte, 64<<10)
		for len(all) < len(want) {
			n, err := rd.Read(buf)
			all = append(all, buf[:n]...)
			if err != nil {
				break
			}
		}
		got <- all
		_, err := rd.Read(buf) // nothing more comes: waits until Close
		ended <- err
	}()
	if n, err := wr.Write(want); n != len(want) || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
	select {
	case all := <-got:
		if !bytes.Equal(all, want) {
			t.Fatalf("read %d bytes, not what was written (%d)", len(all), len(want))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the reader did not get everything")
	}
	rd.Close()
	select {
	case err := <-ended:
		if err == nil {
			t.Error("a Read ended by Close reported no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end a waiting Read")
	}
	if err := rd.Do(func(int) {}); err == nil {
		t.Error("Do after Close did not fail")
	}
}

// A read Poller reports the end of input as io.EOF.
func TestPollerEOF(t *testing.T) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w := p[0], p[1]
	defer unix.Close(r)
	rd, err := NewReadPoller(r)
	if err != nil {
		unix.Close(w)
		t.Fatal(err)
	}
	defer rd.Close()
	unix.Write(w, []byte("x"))
	unix.Close(w)
	buf := make([]byte, 8)
	if n, err := rd.Read(buf); n != 1 || err != nil {
		t.Fatalf("Read = %d, %v", n, err)
	}
	if _, err := rd.Read(buf); err != io.EOF {
		t.Fatalf("Read at the end = %v, want io.EOF", err)
	}
}
