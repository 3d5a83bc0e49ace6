package supervisor

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// STATUS over its lifetime: pid, alive, Active while output flows, Idle
// after the threshold with a growing idle_ms, Dead after exit.
func TestStatusLifecycle(t *testing.T) {
	const idle = 100 * time.Millisecond
	stop, quit := newGate(t), newGate(t)
	s := startServed(t, Config{
		Argv: []string{"sh", "-c", "while [ ! -e " + stop.Path() + " ]; do echo tick; sleep 0.01; done; " +
			quit.Wait() + "; exit 6"},
		IdleThreshold: idle,
	})
	st := statusOf(t, s.sock)
	if int(st.PID) != s.sess.PID() || !st.Alive {
		t.Fatalf("status %+v; want pid %d alive", st, s.sess.PID())
	}
	// Output every 10 ms: Active (polled, so a stalled machine cannot fail it).
	waitFor(t, "state Active", 10*time.Second, func() bool {
		st = statusOf(t, s.sock)
		return st.State == frame.StateActive
	})
	if !st.Alive || st.IdleMS >= 60_000 {
		t.Fatalf("active status %+v", st)
	}

	stop.Open(t)
	waitFor(t, "state Idle", 10*time.Second, func() bool {
		st = statusOf(t, s.sock)
		return st.State == frame.StateIdle
	})
	// Idle means quiet for at least the threshold; state_ms counts from the
	// moment the threshold passed.
	if st.IdleMS < uint32(idle.Milliseconds()) || st.StateMS > st.IdleMS || !st.Alive {
		t.Fatalf("idle status %+v; want idle_ms >= %d, state_ms <= idle_ms", st, idle.Milliseconds())
	}
	time.Sleep(200 * time.Millisecond)
	st2 := statusOf(t, s.sock)
	if st2.State != frame.StateIdle || st2.IdleMS < st.IdleMS+190 || st2.StateMS < st.StateMS+190 {
		t.Fatalf("200 ms later: %+v, before: %+v; want idle_ms and state_ms grown by >= 190", st2, st)
	}

	quit.Open(t)
	if code := waitDone(t, s.sess, 10*time.Second); code != 6 {
		t.Fatalf("exit %d", code)
	}
	for _, st := range []frame.StatusInfo{WireStatus(s.sess.Status()), statusOf(t, s.sock)} {
		if st.Alive || st.State != frame.StateDead || int(st.PID) != s.sess.PID() {
			t.Fatalf("after exit: %+v; want alive=0 state Dead", st)
		}
	}
	if b, _ := statusOf(t, s.sock).MarshalBinary(); b[8] != 0 || b[9] != 0xFF {
		t.Fatalf("wire bytes after exit: alive %d state %#x", b[8], b[9])
	}
}

// The child gets TERM, the session id under the configured name, the extra
// Env and the configured working directory.
func TestChildEnvAndDir(t *testing.T) {
	t.Setenv("TERM", "dumb")                     // overridden for the child
	t.Setenv("HEIMDALL_SESSION_ID", "outer-one") // as if nested in another session
	t.Setenv("MY_SID", "outer-two")
	for _, tc := range []struct {
		name, envVar, lookup string
	}{
		{"default-var", "", "HEIMDALL_SESSION_ID"},
		{"custom-var", "MY_SID", "MY_SID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wd := shortDir(t)
			s := startSession(t, Config{
				ID:            "sess-42",
				Argv:          []string{"sh", "-c", `printf 'T=%s\nS=%s\nX=%s\nD=%s\n' "$TERM" "$` + tc.lookup + `" "$EXTRA_ONE" "$(pwd -P)"`},
				Dir:           wd,
				Env:           []string{"EXTRA_ONE=yes please"},
				SessionEnvVar: tc.envVar,
			})
			waitDone(t, s, 10*time.Second)
			got := string(scrollback(s))
			realWD, err := filepath.EvalSymlinks(wd)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"T=xterm-256color\r\n", "S=sess-42\r\n", "X=yes please\r\n", "D=" + realWD + "\r\n"} {
				if !strings.Contains(got, want) {
					t.Errorf("child output %q lacks %q", got, want)
				}
			}
		})
	}
}

func TestStartErrors(t *testing.T) {
	_, err := Start(Config{ID: "x", Argv: []string{"no-such-program-hm"}})
	if err == nil || !errors.Is(err, exec.ErrNotFound) || !strings.Contains(err.Error(), "no-such-program-hm") {
		t.Fatalf("missing program: %v; want an error naming it that Is exec.ErrNotFound", err)
	}
	if _, err := Start(Config{ID: "x"}); err == nil {
		t.Fatal("no argv: no error")
	}
	_, err = Start(Config{ID: "x", Argv: []string{"true"}, Dir: "/no/such/dir-hm"})
	if err == nil || !strings.Contains(err.Error(), "no/such/dir-hm") {
		t.Fatalf("missing dir: %v; want an error naming it", err)
	}
}

// Listeners get every byte in order; a removed one gets nothing more.
func TestListeners(t *testing.T) {
	g := newGate(t)
	s := startSession(t, Config{Argv: []string{"sh", "-c", g.Wait() + "; seq 1 40000; cat"}})
	var a, b collector
	removeA := s.AddListener(a.add)
	removeB := s.AddListener(b.add)
	g.Open(t)
	want := seqOutput(40000)
	waitFor(t, "the seq output", 20*time.Second, func() bool { return len(a.bytes()) >= len(want) && len(b.bytes()) >= len(want) })
	if string(a.bytes()) != want || string(b.bytes()) != want {
		t.Fatalf("listeners got %d and %d bytes, want %d in order", len(a.bytes()), len(b.bytes()), len(want))
	}

	removeB()
	if _, err := s.Write([]byte("after\n")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the echo", 10*time.Second, func() bool {
		return bytes.HasSuffix(a.bytes(), []byte("after\r\nafter\r\n"))
	})
	if got := b.bytes(); len(got) != len(want) {
		t.Fatalf("removed listener got %q more", got[len(want):])
	}
	removeA()
	removeA() // idempotent
	n := len(a.bytes())
	s.Write([]byte("again\n"))
	// Nothing reaches a; a fresh listener proves the output happened.
	var c collector
	defer s.AddListener(c.add)()
	s.Write([]byte("third\n"))
	// Echo and cat's copy of both lines (the echoes may come first).
	waitFor(t, "third", 10*time.Second, func() bool { return bytes.Count(c.bytes(), []byte("third\r\n")) == 2 })
	if len(a.bytes()) != n {
		t.Fatalf("removed listener got %q", a.bytes()[n:])
	}
}

// Session API edges: Write and Resize after exit, Kill is a no-op, Close
// returns the code.
func TestSessionAfterExit(t *testing.T) {
	s := startSession(t, Config{Argv: []string{"sh", "-c", "exit 9"}})
	if code := waitDone(t, s, 10*time.Second); code != 9 || s.Wait() != 9 {
		t.Fatalf("exit %d", code)
	}
	if _, err := s.Write([]byte("x")); !errors.Is(err, ErrExited) {
		t.Fatalf("Write after exit: %v", err)
	}
	if err := s.Resize(10, 10); !errors.Is(err, ErrExited) {
		t.Fatalf("Resize after exit: %v", err)
	}
	if err := s.Signal(syscall.SIGTERM); !errors.Is(err, ErrExited) {
		t.Fatalf("Signal after exit: %v", err)
	}
	if err := s.Kill(); err != nil {
		t.Fatalf("Kill after exit: %v", err)
	}
	if code := s.Close(); code != 9 {
		t.Fatalf("Close: %d", code)
	}
}

// Close on a running session kills it (SIGHUP) and returns 128+1.
func TestSessionClose(t *testing.T) {
	s := startSession(t, Config{Argv: []string{"sleep", "1000"}, KillGrace: 5 * time.Second})
	if code := s.Close(); code != 128+int(syscall.SIGHUP) {
		t.Fatalf("Close: %d", code)
	}
}

// Close hangs up as a closing terminal does: a program that ignores
// SIGTERM but exits on SIGHUP (an interactive shell) ends at once, and one
// that ignores SIGHUP but exits on SIGTERM (nohup) a second later, both by
// their own handlers, not by the SIGKILL after the grace.
func TestCloseHangsUp(t *testing.T) {
	for _, c := range []struct {
		name, script string
		code         int
	}{
		{"shell", `trap '' TERM; trap 'exit 7' HUP; echo ready; while :; do sleep 0.05; done`, 7},
		{"nohup", `trap '' HUP; trap 'exit 9' TERM; echo ready; while :; do sleep 0.05; done`, 9},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := startSession(t, Config{Argv: []string{"sh", "-c", c.script}, KillGrace: time.Minute})
			waitFor(t, "ready", 10*time.Second, func() bool { return strings.Contains(s.Screen().Text(), "ready") })
			if code := s.Close(); code != c.code {
				t.Fatalf("exit code %d, want %d (its handler's)", code, c.code)
			}
		})
	}
}
