package rawio

import (
	"bytes"
	"io"
	"os"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var fl int
	rc.Control(func(fd uintptr) { fl, err = unix.FcntlInt(fd, unix.F_GETFL, 0) })
	if err != nil {
		t.Fatal(err)
	}
	return fl&unix.O_NONBLOCK != 0
}

// Reopen gives a non-blocking description of its own: the original (a
// terminal the shell shares) stays blocking, and both reach the same file.
func TestReopenLeavesTheOriginalBlocking(t *testing.T) {
	m, s, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	defer s.Close()
	s.Fd() // blocking, as a shell's terminal is
	if nonblocking(t, s) {
		t.Fatal("the pty's slave starts non-blocking")
	}
	f, c, err := Reopen(s, os.O_RDONLY)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if nonblocking(t, s) {
		t.Error("Reopen made the original non-blocking")
	}
	if !nonblocking(t, f) {
		t.Error("the reopened file is blocking")
	}
	m.Write([]byte("hi\n"))
	buf := make([]byte, 16)
	n, err := c.Read(buf)
	if err != nil || string(buf[:n]) != "hi\n" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
}

// A read waits in the netpoller, ends with Close (as a cancel) and at the
// end of input with io.EOF; Of refuses a blocking file.
func TestConnReadWaitsAndEnds(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Fd() // blocking
	if _, ok := Of(w); ok {
		t.Fatal("Of accepted a blocking pipe")
	}
	f, c, err := Reopen(r, os.O_RDONLY)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 8))
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("Read returned %v with nothing to read", err)
	case <-time.After(50 * time.Millisecond):
	}
	f.Close()
	select {
	case err := <-got:
		if err == nil {
			t.Error("Read after Close returned no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the Read")
	}

	f, c, err = Reopen(r, os.O_RDONLY)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r.Close()
	w.Write([]byte("x"))
	w.Close()
	b, err := io.ReadAll(c)
	if err != nil || string(b) != "x" {
		t.Errorf("ReadAll = %q, %v", b, err)
	}
}

// A write larger than the pipe waits for the reader and writes it all.
func TestConnWriteWaitsForRoom(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, c, err := Reopen(w, os.O_WRONLY)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	want := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB, far above a pipe's 64 KiB
	done := make(chan error, 1)
	go func() {
		n, err := c.Write(want)
		if err == nil && n != len(want) {
			err = io.ErrShortWrite
		}
		f.Close()
		done <- err
	}()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes (%v), want %d", len(got), err, len(want))
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestWritev(t *testing.T) {
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	if n, err := Writev(fds[1], [][]byte{[]byte("head"), []byte("body")}); n != 8 || err != nil {
		t.Fatalf("Writev = %d, %v", n, err)
	}
	if n, err := Writev(fds[1], [][]byte{nil, []byte("!")}); n != 1 || err != nil {
		t.Fatalf("Writev with an empty first part = %d, %v", n, err)
	}
	// Past WritevMax segments, the rest is left for the next call.
	many := make([][]byte, WritevMax+1)
	for i := range many {
		many[i] = []byte{byte('a' + i%26)}
	}
	if n, err := Writev(fds[1], many); n != WritevMax || err != nil {
		t.Fatalf("Writev of %d segments = %d, %v; want %d", len(many), n, err, WritevMax)
	}
	buf := make([]byte, 128)
	n, err := Read(fds[0], buf)
	if err != nil || string(buf[:9]) != "headbody!" || n != 9+WritevMax {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	if _, err := Read(fds[0], buf); err != unix.EAGAIN {
		t.Fatalf("Read of an empty non-blocking pipe = %v, want EAGAIN", err)
	}
}
