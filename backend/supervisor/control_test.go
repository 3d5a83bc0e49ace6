package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// INPUT reaches the child: the tty echoes it and cat prints it back.
func TestInputRoundTrip(t *testing.T) {
	s := startServed(t, Config{Argv: []string{"cat"}})
	c := dial(t, s.sock)
	subscribeSync(t, c)
	if err := c.Input([]byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	// The line discipline echoes "hello\r\n", then cat writes it again.
	readUntil(t, c, "hello\r\nhello\r\n", 10*time.Second)
	// ^D on an empty line: cat sees EOF and exits 0.
	if err := c.Input([]byte{4}); err != nil {
		t.Fatal(err)
	}
	if _, code := readUntilExit(t, c, 10*time.Second); code != 0 {
		t.Fatalf("cat exited %d after ^D", code)
	}
}

// RESIZE changes the pty size the child sees.
func TestResizeSeenByChild(t *testing.T) {
	s := startServed(t, Config{Argv: []string{"sh"}, Cols: 80, Rows: 24})
	c := dial(t, s.sock)
	subscribeSync(t, c)
	if err := c.Input([]byte("stty size\n")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, c, "24 80", 10*time.Second)
	// Frames on one connection are handled in order, so the resize is done
	// before the shell reads the next line.
	if err := c.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	if err := c.Input([]byte("stty size\n")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, c, "30 100", 10*time.Second)
	if cols, rows := s.sess.Size(); cols != 100 || rows != 30 {
		t.Fatalf("Size() = %dx%d, want 100x30", cols, rows)
	}
	// An invalid size is refused and changes nothing.
	if err := s.sess.Resize(0, 10); err == nil {
		t.Fatal("Resize(0, 10) succeeded")
	}
	if err := c.Resize(0, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Input([]byte("stty size\n")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, c, "30 100", 10*time.Second)
}

// KILL signals the whole process group: a background grandchild that
// ignores SIGHUP (so the hangup when its session leader dies would not kill
// it) dies with the child, and EXIT carries 128+SIGTERM.
func TestKillReachesGrandchild(t *testing.T) {
	for _, tc := range []struct {
		name      string
		childOnly bool
	}{{"group", false}, {"child-only", true}} {
		t.Run(tc.name, func(t *testing.T) {
			pidfile := filepath.Join(shortDir(t), "pid")
			s := startServed(t, Config{
				Argv:          []string{"sh", "-c", "trap '' HUP; sleep 1000 & echo $! > " + pidfile + "; wait"},
				KillChildOnly: tc.childOnly,
			})
			gc := readPidFile(t, pidfile, 10*time.Second)
			t.Cleanup(func() { syscall.Kill(gc, syscall.SIGKILL) })
			if processGone(gc) {
				t.Fatalf("grandchild %d not running", gc)
			}
			c := dial(t, s.sock)
			subscribeSync(t, c)
			if err := c.Kill(); err != nil {
				t.Fatal(err)
			}
			if _, code := readUntilExit(t, c, 10*time.Second); code != 128+int(syscall.SIGTERM) {
				t.Fatalf("EXIT %d, want %d (SIGTERM)", code, 128+int(syscall.SIGTERM))
			}
			if !tc.childOnly {
				waitGone(t, gc, 10*time.Second)
				return
			}
			// Control: signalling the child alone leaves the grandchild
			// running, which shows the check above can fail.
			time.Sleep(200 * time.Millisecond)
			if processGone(gc) {
				t.Fatalf("grandchild %d died although only the child was signalled", gc)
			}
		})
	}
}

// A child that ignores SIGTERM gets SIGKILL once KillGrace has passed, and
// not before.
func TestKillGraceThenSIGKILL(t *testing.T) {
	const grace = 300 * time.Millisecond
	s := startServed(t, Config{
		// The ignored disposition is inherited by the sleeps too.
		Argv:      []string{"sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"},
		KillGrace: grace,
	})
	c := dial(t, s.sock)
	if !strings.Contains(string(subscribeSync(t, c)), "ready") { // the trap is in place
		readUntil(t, c, "ready", 10*time.Second)
	}
	start := time.Now()
	if err := c.Kill(); err != nil {
		t.Fatal(err)
	}
	_, code := readUntilExit(t, c, 10*time.Second)
	elapsed := time.Since(start)
	if code != 128+int(syscall.SIGKILL) {
		t.Fatalf("EXIT %d, want %d (SIGKILL)", code, 128+int(syscall.SIGKILL))
	}
	if elapsed < grace {
		t.Fatalf("killed after %v, before the %v grace", elapsed, grace)
	}
}

// After a KILL the grace applies to the whole group: a grandchild that
// ignores SIGTERM and SIGHUP outlives the child, which dies of the SIGTERM,
// and is SIGKILLed when the grace ends (Kill's contract: "if the child or its
// group is still alive after KillGrace, SIGKILL").
func TestKillGraceReachesSurvivingGrandchild(t *testing.T) {
	const grace = 300 * time.Millisecond
	pidfile := filepath.Join(shortDir(t), "pid")
	s := startServed(t, Config{
		Argv: []string{"sh", "-c",
			"(trap '' TERM HUP; exec sleep 1000) & echo $! > " + pidfile + "; wait"},
		KillGrace: grace,
	})
	gc := readPidFile(t, pidfile, 10*time.Second)
	t.Cleanup(func() { syscall.Kill(gc, syscall.SIGKILL) })
	waitFor(t, "the grandchild to ignore SIGTERM", 10*time.Second, func() bool {
		return ignoresSignal(gc, syscall.SIGTERM)
	})
	if err := s.sess.Kill(); err != nil {
		t.Fatal(err)
	}
	if code := waitDone(t, s.sess, 10*time.Second); code != 128+int(syscall.SIGTERM) {
		t.Fatalf("child exit %d, want %d", code, 128+int(syscall.SIGTERM))
	}
	waitGone(t, gc, grace+5*time.Second)
}

// ignoresSignal reads SigIgn from /proc/pid/status.
func ignoresSignal(pid int, sig syscall.Signal) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && mask&(1<<(uint(sig)-1)) != 0
		}
	}
	return false
}

// EXIT carries the exit status, or 128+signal for a signalled child.
func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   int
	}{
		{"exit 3", 3},
		{"exit 0", 0},
		{"kill -9 $$", 128 + 9},
		{"kill -TERM $$", 128 + 15},
		{"kill -INT $$; sleep 5", 128 + 2},
	} {
		t.Run(tc.script, func(t *testing.T) {
			s := startServed(t, Config{Argv: []string{"sh", "-c", tc.script}})
			c := dial(t, s.sock)
			if err := c.Subscribe(); err != nil {
				t.Fatal(err)
			}
			if _, code := readUntilExit(t, c, 10*time.Second); code != tc.want {
				t.Fatalf("EXIT %d, want %d", code, tc.want)
			}
			if code := s.sess.ExitCode(); code != tc.want {
				t.Fatalf("ExitCode() %d, want %d", code, tc.want)
			}
		})
	}
}
