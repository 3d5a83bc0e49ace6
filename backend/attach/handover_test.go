package attach

import (
	"bytes"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/backend/internal/rawio"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// logBuf collects a server's log.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// has reports whether a line of the log has all of parts.
func (l *logBuf) has(parts ...string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
next:
	for _, line := range strings.Split(l.b.String(), "\n") {
		for _, p := range parts {
			if !strings.Contains(line, p) {
				continue next
			}
		}
		return true
	}
	return false
}

func loggedServer(queueBytes int) (*supervisor.Server, *logBuf) {
	lb := &logBuf{}
	return &supervisor.Server{QueueBytes: queueBytes, Logger: slog.New(slog.NewTextHandler(lb, nil))}, lb
}

const echoKeys = `stty raw -echo; printf READY; while IFS= read -r -n 1 c; do printf '<%s>' "$c"; done`

func scrollback(sess *supervisor.Session) string {
	replay, remove := sess.Listen(func([]byte) {})
	remove()
	return string(replay)
}

// A supervisor that knows TERMINAL takes the terminal: keys typed reach the
// program and its echo the terminal with attach only waiting; the detach
// key hands the terminal back (the keys before it sent, none after), the
// session goes on, and attaching again shows what it printed.
func TestHandOverKeysDetachReattach(t *testing.T) {
	srv, log := loggedServer(0)
	sess, sock := servedWith(t, srv, "bash", "-c", echoKeys)
	tm := newTerminal(t)
	ch := runAsync(dialSocket(t, sock), Options{In: tm.slave, Out: tm.slave})
	proctest.WaitFor(t, "the replay", 10*time.Second, func() bool { return tm.shows("READY") })
	if !log.has("terminal taken") {
		t.Fatal("the supervisor did not take the terminal")
	}
	tm.master.Write([]byte("ab"))
	proctest.WaitFor(t, "the echo of ab", 10*time.Second, func() bool { return tm.shows("<a><b>") })
	tm.master.Write([]byte("c\x1cd"))
	if r := wait(t, ch); r.err != nil || !r.res.Detached {
		t.Fatalf("Run = %+v, %v; want detached", r.res, r.err)
	}
	if !log.has("terminal released", "reason=2") {
		t.Errorf("the supervisor did not log the detach:\n%s", log.b.String())
	}
	proctest.WaitFor(t, "the key before the detach key", 10*time.Second, func() bool { return strings.Contains(scrollback(sess), "<c>") })
	if strings.Contains(scrollback(sess), "<d>") {
		t.Error("a key after the detach key was sent")
	}
	select {
	case <-sess.Done():
		t.Fatal("the session ended on detach")
	default:
	}

	tm2 := newTerminal(t)
	ch = runAsync(dialSocket(t, sock), Options{In: tm2.slave, Out: tm2.slave})
	proctest.WaitFor(t, "the screen again", 10*time.Second, func() bool { return tm2.shows("READY<a><b><c>") })
	tm2.master.Write([]byte("e"))
	proctest.WaitFor(t, "the echo after re-attaching", 10*time.Second, func() bool { return tm2.shows("<e>") })
	tm2.master.Write([]byte{DefaultDetachKey})
	if r := wait(t, ch); r.err != nil || !r.res.Detached {
		t.Fatalf("second Run = %+v, %v; want detached", r.res, r.err)
	}
}

// The session's exit while the supervisor has the terminal: all its output
// reaches the terminal, then Run returns the exit code.
func TestHandOverExit(t *testing.T) {
	srv, log := loggedServer(0)
	_, sock := servedWith(t, srv, "sh", "-c", `sleep 0.3; echo the-end; exit 3`)
	tm := newTerminal(t)
	r := wait(t, runAsync(dialSocket(t, sock), Options{In: tm.slave, Out: tm.slave}))
	if r.err != nil || !r.res.Exited || r.res.Code != 3 {
		t.Fatalf("Run = %+v, %v; want exited with 3", r.res, r.err)
	}
	proctest.WaitFor(t, "the output", 10*time.Second, func() bool { return tm.shows("the-end") })
	if !log.has("terminal taken") {
		t.Error("the supervisor did not take the terminal")
	}
}

// handOverFDs hands tm to the server on s as attach does, and reports
// whether it was taken.
func handOverFDs(t *testing.T, s *Socket, in, out *os.File) bool {
	t.Helper()
	inFD, err := rawio.ReopenFD(in, os.O_RDONLY)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(inFD)
	outFD, err := rawio.ReopenFD(out, os.O_WRONLY)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(outFD)
	taken, err := s.handOver(inFD, outFD, DefaultDetachKey)
	if err != nil {
		t.Fatal(err)
	}
	return taken
}

// When attach goes (killed: the kernel closes its socket), the supervisor
// drops the terminal at once: the program's later output never reaches it.
func TestHandOverAttachGone(t *testing.T) {
	srv, log := loggedServer(0)
	sess, sock := servedWith(t, srv, "bash", "-c", echoKeys)
	tm := newTerminal(t)
	s := dialSocket(t, sock)
	if !handOverFDs(t, s, tm.slave, tm.slave) {
		t.Fatal("the terminal was not taken")
	}
	proctest.WaitFor(t, "the replay", 10*time.Second, func() bool { return tm.shows("READY") })
	s.Close()
	proctest.WaitFor(t, "the release", 10*time.Second, func() bool { return log.has("terminal released", "reason=0") })
	sess.Write([]byte("x"))
	proctest.WaitFor(t, "the echo in the scrollback", 10*time.Second, func() bool { return strings.Contains(scrollback(sess), "<x>") })
	time.Sleep(200 * time.Millisecond) // what a write would have left in the terminal has arrived
	if tm.shows("<x>") {
		t.Error("the supervisor wrote to the terminal after its attach was gone")
	}
}

// A terminal that falls behind the output by more than the queue bound is
// handed back (TERMINAL_STATE slow), and attach goes on over the socket.
func TestHandOverSlowTerminal(t *testing.T) {
	srv, log := loggedServer(64 << 10)
	sess, sock := servedWith(t, srv, "bash", "-c",
		`stty raw -echo; IFS= read -r -n 1 c; head -c 1000000 /dev/zero | tr '\0' x; printf FLOODED; `+
			`while IFS= read -r -n 1 c; do printf '<%s>' "$c"; done`)
	tm := newUnreadTerminal(t)
	ch := runAsync(dialSocket(t, sock), Options{In: tm.slave, Out: tm.slave})
	proctest.WaitFor(t, "the hand-over", 10*time.Second, func() bool { return log.has("terminal taken") })
	tm.master.Write([]byte("g"))
	proctest.WaitFor(t, "the terminal handed back", 10*time.Second, func() bool { return log.has("terminal released", "reason=3") })
	tm.read(t)
	// Over the socket, output beyond the queue's bound is dropped; the
	// supervisor then repaints the attached terminal's screen (ATTACH), so
	// the flood's end and the echo of a key typed after it show.
	proctest.WaitFor(t, "the end of the flood", 10*time.Second, func() bool { return strings.Contains(scrollback(sess), "FLOODED") })
	tm.master.Write([]byte("z"))
	proctest.WaitFor(t, "the key reaching the program", 10*time.Second, func() bool { return strings.Contains(scrollback(sess), "<z>") })
	proctest.WaitFor(t, "the flood's end and the key's echo on the terminal", 10*time.Second, func() bool {
		return tm.shows("FLOODED") && tm.shows("<z>")
	})
	tm.master.Write([]byte{DefaultDetachKey})
	if r := wait(t, ch); r.err != nil || !r.res.Detached {
		t.Fatalf("Run = %+v, %v; want detached", r.res, r.err)
	}
}

// Descriptors that are not a terminal are refused and closed; the
// connection goes on as before.
func TestHandOverRefused(t *testing.T) {
	_, sock := served(t, "bash", "-c", echoKeys)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	s := dialSocket(t, sock)
	defer s.Close()
	if handOverFDs(t, s, r, w) {
		t.Fatal("a pipe was taken as a terminal")
	}
	out, _, _, err := s.Recv()
	if err != nil || !strings.Contains(string(out), "READY") {
		t.Fatalf("Recv after the refusal = %q, %v", out, err)
	}
}

// oldServer serves the frame protocol without the TERMINAL extension (as
// hm and older heimdall-tui releases): TERMINAL is ignored, STATUS gets
// STATUS_RESP, SUBSCRIBE a line of output, INPUT its echo.
func oldServer(t *testing.T) (sock string, sawTerminal func() bool) {
	t.Helper()
	sock = proctest.ShortDir(t) + "/old.sock"
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	saw := false
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				stop := closeAtEnd(t, c)
				defer stop()
				c.Write([]byte{frame.ModeBinary})
				r := frame.NewReader(c)
				for {
					f, err := r.Next()
					if err != nil {
						return
					}
					switch f.Type {
					case frame.Terminal:
						mu.Lock()
						saw = true
						mu.Unlock()
					case frame.Status:
						b, _ := frame.StatusInfo{PID: 1, Alive: true}.MarshalBinary()
						frame.Write(c, frame.StatusResp, b)
					case frame.Subscribe:
						frame.Write(c, frame.Output, []byte("hello-old "))
					case frame.Input:
						frame.Write(c, frame.Output, []byte("<"+string(f.Payload)+">"))
					}
				}
			}()
		}
	}()
	return sock, func() bool { mu.Lock(); defer mu.Unlock(); return saw }
}

// closeAtEnd closes c when the test ends (or stop is called), so the
// server's connection goroutine ends.
func closeAtEnd(t *testing.T, c net.Conn) func() {
	done := make(chan struct{})
	go func() {
		<-done
		c.Close()
	}()
	var once sync.Once
	stop := func() { once.Do(func() { close(done) }) }
	t.Cleanup(stop)
	return stop
}

// Against a server without the extension attach works as before, over the
// socket.
func TestHandOverOldServer(t *testing.T) {
	sock, sawTerminal := oldServer(t)
	tm := newTerminal(t)
	ch := runAsync(dialSocket(t, sock), Options{In: tm.slave, Out: tm.slave})
	proctest.WaitFor(t, "the subscription's output", 10*time.Second, func() bool { return tm.shows("hello-old") })
	if !sawTerminal() {
		t.Error("attach did not offer the terminal")
	}
	tm.master.Write([]byte("q"))
	proctest.WaitFor(t, "the echo", 10*time.Second, func() bool { return tm.shows("<q>") })
	tm.master.Write([]byte{DefaultDetachKey})
	if r := wait(t, ch); r.err != nil || !r.res.Detached {
		t.Fatalf("Run = %+v, %v; want detached", r.res, r.err)
	}
}
