package remote

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/backend/remote/sshdtest"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
	"github.com/heimdall-tui/heimdall-tui/wire/mux"
)

var heimdallBin string // built once by TestMain; heimdall-tui is beside it

func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "remotebin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	proctest.PrivateState(tmp)
	heimdallBin, err = proctest.BuildHeimdall(tmp)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// startSession runs a detached session in dir and stops it at the end.
func startSession(t testing.TB, dir, id string, argv ...string) {
	t.Helper()
	tui := filepath.Join(filepath.Dir(heimdallBin), "heimdall-tui")
	args := append([]string{"--socket-dir", dir, "run", "--detach", "--id", id, "--"}, argv...)
	if out, err := exec.Command(tui, args...).CombinedOutput(); err != nil {
		t.Fatalf("run %s: %v\n%s", id, err, out)
	}
	t.Cleanup(func() { exec.Command(tui, "--socket-dir", dir, "kill", id).Run() })
}

// fakeSSH is an ssh that runs the command here: it checks the options
// Connect gives, drops them and the destination, and runs the rest.
func fakeSSH(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ssh")
	script := "#!/bin/sh\n[ \"$1\" = -T ] || { echo 'no -T' >&2; exit 9; }\n" +
		"while [ \"$1\" != -- ]; do shift; done\nshift\n" +
		"[ \"$1\" = unreachable ] && { echo 'ssh: connect to host unreachable port 22: Connection refused' >&2; exit 255; }\n" +
		"shift\nexec \"$@\"\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Through ssh's stdio (a fake ssh here): the far end announces its
// sessions, a channel to one speaks the session's own frame protocol,
// a session that starts later is announced, a host that cannot be reached
// says why, and a destination that looks like an option is refused.
func TestConnect(t *testing.T) {
	dir := proctest.ShortDir(t)
	startSession(t, dir, "s1", "sh", "-c", "echo hello-remote; exec sleep 60")
	ann := make(chan mux.Sessions, 8)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	o := Options{Dest: "box", Command: []string{heimdallBin, "--socket-dir", dir, "mux"}, SSH: fakeSSH(t)}
	l, err := Connect(ctx, o, func(s mux.Sessions) { ann <- s })
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if h := l.Hello(); h.Dir != dir {
		t.Fatalf("hello %+v", h)
	}
	if s := <-ann; len(s.Added) != 1 || s.Added[0] != "s1" {
		t.Fatalf("first announcement %+v", s)
	}
	conn, err := l.Dial("s1")
	if err != nil {
		t.Fatal(err)
	}
	c, err := frame.NewClient(conn, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.Conn().SetDeadline(time.Now().Add(10 * time.Second))
	st, err := c.Status()
	if err != nil || !st.Alive {
		t.Fatalf("STATUS over the channel: %+v %v", st, err)
	}
	si, err := c.Screen(false)
	if err != nil || !strings.Contains(si.Screen, "hello-remote") {
		t.Fatalf("SCREEN over the channel: %q %v", si.Screen, err)
	}
	c.Close()
	startSession(t, dir, "s2", "sleep", "60")
	select {
	case s := <-ann:
		if len(s.Added) != 1 || s.Added[0] != "s2" {
			t.Fatalf("announcement %+v", s)
		}
	case <-ctx.Done():
		t.Fatal("s2 was not announced")
	}
	if _, err := l.Dial("nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("dial nope: %v", err)
	}
	if _, err := l.Dial("../x"); err == nil || !strings.Contains(err.Error(), "invalid session id") {
		t.Fatalf("dial ../x: %v", err)
	}

	o.Dest = "unreachable"
	if _, err := Connect(ctx, o, nil); err == nil || !strings.Contains(err.Error(), "Connection refused") {
		t.Fatalf("unreachable: %v", err)
	}
	o.Dest = "-oProxyCommand=evil"
	if _, err := Connect(ctx, o, nil); err == nil || !strings.Contains(err.Error(), "starts with '-'") {
		t.Fatalf("an option as destination: %v", err)
	}
}

// Over a real OpenSSH server with forwarding disabled: one ssh process
// carries the channels; killing it ends the link with the reason, and
// the session goes on.
func TestOverOpenSSH(t *testing.T) {
	ssh := sshdtest.Start(t).SSH
	dir := proctest.ShortDir(t)
	startSession(t, dir, "r1", "sh", "-c", "echo over-ssh; exec sleep 60")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ann := make(chan mux.Sessions, 8)
	l, err := Connect(ctx, Options{Dest: "box", Command: []string{heimdallBin, "--socket-dir", dir, "mux"}, SSH: ssh}, func(s mux.Sessions) { ann <- s })
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if s := <-ann; len(s.Added) != 1 || s.Added[0] != "r1" {
		t.Fatalf("announcement %+v", s)
	}
	for range 3 { // three channels, one connection
		conn, err := l.Dial("r1")
		if err != nil {
			t.Fatal(err)
		}
		c, err := frame.NewClient(conn, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c.Conn().SetDeadline(time.Now().Add(10 * time.Second))
		if si, err := c.Screen(false); err != nil || !strings.Contains(si.Screen, "over-ssh") {
			t.Fatalf("SCREEN over ssh: %q %v", si.Screen, err)
		}
	}
	attachOverSSH(t, l, dir)
	l.cmd.Process.Kill()
	select {
	case <-l.Done():
	case <-ctx.Done():
		t.Fatal("the link did not end with ssh")
	}
	tui := filepath.Join(filepath.Dir(heimdallBin), "heimdall-tui")
	if out, err := exec.Command(tui, "--socket-dir", dir, "status", "r1").CombinedOutput(); err != nil || !strings.Contains(string(out), "alive:    true") {
		t.Fatalf("the session after the link ended: %v\n%s", err, out)
	}
}

// attachOverSSH runs the link's AttachCommand for r1 in a pty, as the
// dashboard hands it the terminal: ssh -t to the far end's own heimdall,
// named by its HELLO, shows r1's screen and takes the detach key.
func attachOverSSH(t *testing.T, l *Link, dir string) {
	t.Helper()
	if h := l.Hello(); h.Exe == "" || h.Dir != dir {
		t.Fatalf("hello %+v: want the far end's executable and dir", h)
	}
	if argv := l.AttachCommand("-x", 0x1d); argv != nil {
		t.Fatalf("an ID like an option: %q", argv)
	}
	argv := l.AttachCommand("r1", 0x1d) // ctrl-]
	if i := slices.Index(argv, "--"); i < 0 || argv[i+1] != "box" || !slices.Contains(argv, "-t") || !slices.Contains(argv, "0x1d") {
		t.Fatalf("attach command %q", argv)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	var (
		mu  sync.Mutex
		all []byte
	)
	got := func() string { mu.Lock(); defer mu.Unlock(); return string(all) }
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			mu.Lock()
			all = append(all, buf[:n]...)
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// The screen first, then the detach key: until the far end's attach
	// has the terminal raw, the key would be the line discipline's.
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(got(), "over-ssh") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	for time.Now().Before(deadline) {
		ptmx.Write([]byte{0x1d})
		select {
		case err := <-done:
			ptmx.Close()
			<-read
			if err != nil || !strings.Contains(got(), "over-ssh") || !strings.Contains(got(), "detached") {
				t.Fatalf("attach over ssh -t: %v\n%q", err, got())
			}
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
	cmd.Process.Kill()
	<-done
	t.Fatal("attach over ssh -t did not detach")
}
