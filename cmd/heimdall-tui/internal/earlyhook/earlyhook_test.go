package earlyhook

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/cmd/heimdall-tui/internal/toollinks"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// The constants this package cannot import are wire/frame's.
func TestFrameConstants(t *testing.T) {
	if frameHook != byte(frame.Hook) || sourceClaude != frame.HookClaude || sourceCodex != frame.HookCodex ||
		maxPayload != frame.MaxPayload || headerSize != frame.HeaderSize {
		t.Fatal("earlyhook's frame constants differ from wire/frame's")
	}
}

// The frame the hook builds is, byte for byte, frame.AppendFrame's.
func TestFrameBytes(t *testing.T) {
	for _, body := range [][]byte{nil, []byte(`{"hook_event_name":"Stop"}`), bytes.Repeat([]byte("x"), 70000), bytes.Repeat([]byte("y"), maxPayload-1)} {
		for _, src := range []byte{sourceClaude, sourceCodex} {
			msg := append(make([]byte, headerSize), src)
			msg = append(msg, body...)
			putHeader(msg, frameHook, len(msg)-headerSize)
			want := frame.AppendFrame(nil, frame.Hook, append([]byte{src}, body...))
			if !bytes.Equal(msg, want) {
				t.Fatalf("source %d, %d-byte body: header % x, frame.AppendFrame's % x", src, len(body), msg[:headerSize+1], want[:headerSize+1])
			}
		}
	}
}

func TestInvoked(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want bool
	}{
		{[]string{"/usr/local/bin/heimdall-tui", "hook"}, true},
		{[]string{"heimdall-tui", "hook", "--codex", "{}"}, true},
		{[]string{"/tmp/x/hm", "hook"}, true},
		{[]string{"heimdall-tui-dev", "hook"}, true},
		{[]string{"./heimdall-tui", "ls"}, false},
		{[]string{"heimdall-tui"}, false},
		{[]string{"/bin/heimdall-resolve", "hook"}, false},
		{[]string{"heimdall-ledger", "hook"}, false},
		{[]string{"heimdall-tui", "--socket-dir", "d", "hook"}, false},
		{nil, false},
	} {
		if got := Invoked(c.argv); got != c.want {
			t.Errorf("Invoked(%q) = %v", c.argv, got)
		}
	}
}

func TestHookPrefix(t *testing.T) {
	for _, c := range []struct {
		b    string
		cut  bool
		want bool
	}{
		{"/bin/heimdall-tui\x00hook\x00", false, true},
		{"/bin/heimdall-tui\x00hook\x00--codex\x00{}\x00", false, true},
		{"/bin/heimdall-tui\x00hooks\x00", false, false},
		{"/bin/heimdall-tui\x00ls\x00", false, false},
		{"/bin/heimdall-tui\x00", false, false},
		{"/bin/heimdall-tui\x00ho", true, true}, // the buffer ends there
		{"/bin/heimdall-tui\x00ho", false, false},
		{"/bin/heimdall-tui\x00hx", true, false},
		{"/a/very/long/path", true, true},
		{"/a/very/long/path", false, false},
	} {
		if got := hookPrefix([]byte(c.b), c.cut); got != c.want {
			t.Errorf("hookPrefix(%q, %v) = %v", c.b, c.cut, got)
		}
	}
}

// This process's own command line reads back as os.Args.
func TestReadCmdline(t *testing.T) {
	b, ok := readProc("/proc/self/cmdline")
	if argv := toollinks.SplitCmdline(b); !ok || strings.Join(argv, "\x00") != strings.Join(os.Args, "\x00") {
		t.Fatalf("readProc(cmdline) = %q, %v; os.Args %q", argv, ok, os.Args)
	}
}

// listen serves a socket in a short temp dir; each accepted connection's
// bytes, up to EOF, arrive on the channel.
func listen(t *testing.T) (string, <-chan []byte) {
	t.Helper()
	dir, err := os.MkdirTemp("", "ehk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	l, err := net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	got := make(chan []byte, 4)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			b, _ := io.ReadAll(c)
			c.Close()
			got <- b
		}
	}()
	return l.Addr().String(), got
}

// stdinPipe returns a pipe's read end holding data; its write end is
// closed when closeIt, else held open until the test ends.
func stdinPipe(t *testing.T, data []byte, closeIt bool) int {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	go func() {
		w.Write(data)
		if closeIt {
			w.Close()
		}
	}()
	return int(r.Fd())
}

// nextFrame decodes the one frame a connection carried.
func nextFrame(t *testing.T, got <-chan []byte) frame.Frame {
	t.Helper()
	select {
	case b := <-got:
		r := frame.NewReader(bytes.NewReader(b))
		f, err := r.Next()
		if err != nil {
			t.Fatalf("%d bytes: %v", len(b), err)
		}
		if _, err := r.Next(); err != io.EOF {
			t.Fatalf("more than one frame: %v", err)
		}
		return f
	case <-time.After(10 * time.Second):
		t.Fatal("no connection")
	}
	return frame.Frame{}
}

// run sends Claude's payload from stdin and codex's from its argument;
// an oversize payload, an unreadable or never-ending stdin, send nothing
// and return by the deadline.
func TestRun(t *testing.T) {
	sock, got := listen(t)
	const payload = `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`
	run(nil, stdinPipe(t, []byte(payload), true), sock, deadlineIn(5000))
	if f := nextFrame(t, got); f.Type != frame.Hook || string(f.Payload) != "\x01"+payload {
		t.Fatalf("claude: %s %q", f.Type, f.Payload)
	}
	run([]string{"--codex", `{"type":"agent-turn-complete"}`}, -1, sock, deadlineIn(5000))
	if f := nextFrame(t, got); f.Type != frame.Hook || string(f.Payload) != "\x02"+`{"type":"agent-turn-complete"}` {
		t.Fatalf("codex: %s %q", f.Type, f.Payload)
	}
	// The largest payload the supervisor reads goes through whole (it is
	// larger than the socket's buffer: the write waits for the reader).
	big := append([]byte(`"`), bytes.Repeat([]byte("z"), maxPayload-3)...)
	big = append(big, '"')
	run(nil, stdinPipe(t, big, true), sock, deadlineIn(5000))
	if f := nextFrame(t, got); len(f.Payload) != maxPayload || !bytes.Equal(f.Payload[1:], big) {
		t.Fatalf("a %d-byte payload arrived as %d bytes", len(big)+1, len(f.Payload))
	}

	start := time.Now()
	over := append(bytes.Clone(big), ' ')
	run(nil, stdinPipe(t, over, true), sock, deadlineIn(5000))
	run([]string{"--codex", string(over)}, -1, sock, deadlineIn(5000))
	run(nil, 1<<24, sock, deadlineIn(5000))                               // stdin not open
	run(nil, stdinPipe(t, []byte(payload), false), sock, deadlineIn(100)) // stdin never ends
	select {
	case b := <-got:
		t.Fatalf("sent %d bytes", len(b))
	case <-time.After(100 * time.Millisecond):
	}
	if d := time.Since(start); d > 4*time.Second { // each failed at once but the last, after 100 ms
		t.Fatalf("took %v", d)
	}
}

// A socket that is missing, never accepts, or accepts and never reads
// leaves run returning by its deadline.
func TestRunUnreachable(t *testing.T) {
	dir := t.TempDir()
	deaf, err := net.Listen("unix", filepath.Join(dir, "deaf"))
	if err != nil {
		t.Fatal(err)
	}
	defer deaf.Close()
	big := bytes.Repeat([]byte("z"), maxPayload-1) // more than the socket buffers
	for _, sock := range []string{filepath.Join(dir, "none"), deaf.Addr().String(), ""} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			run(nil, stdinPipe(t, big, true), sock, deadlineIn(300))
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%q: run did not return", sock)
		}
	}
}

// wait's deadline holds: a poll on a pipe nobody writes returns false.
func TestWaitDeadline(t *testing.T) {
	fd := stdinPipe(t, nil, false)
	if wait(fd, pollIn, deadlineIn(20)) {
		t.Fatal("an empty pipe polled readable")
	}
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil {
		t.Fatal("fd closed")
	}
}
