package proc

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"golang.org/x/sys/unix"
)

// started runs script with sh -c as a group leader whose stdout is a pipe,
// reads lines from it until it printed "ready", and makes sure the child
// and its group are gone when the test ends.
func started(t *testing.T, o Options, script string) (*Process, *bufio.Reader) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", script)
	cmd.Stdout = w
	p, err := Start(cmd, o)
	w.Close()
	if err != nil {
		r.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		select { // once reaped, its pid may be another test's group leader's
		case <-p.Done():
		default:
			syscall.Kill(-p.PID(), syscall.SIGKILL)
		}
		select {
		case <-p.Done():
		case <-time.After(10 * time.Second):
			t.Errorf("child %d not reaped", p.PID())
		}
		r.Close()
	})
	br := bufio.NewReader(r)
	readUntil(t, br, "ready")
	return p, br
}

// readUntil reads lines until one equals want and returns those before it.
func readUntil(t *testing.T, br *bufio.Reader, want string) []string {
	t.Helper()
	var lines []string
	for {
		l, err := br.ReadString('\n')
		l = strings.TrimSpace(l)
		if l == want {
			return lines
		}
		if err != nil {
			t.Fatalf("reading the child's output before %q: %v (got %q)", want, err, lines)
		}
		lines = append(lines, l)
	}
}

func waitDone(t *testing.T, p *Process, d time.Duration) int {
	t.Helper()
	select {
	case <-p.Done():
		return p.ExitCode()
	case <-time.After(d):
		t.Fatalf("child %d still running after %v", p.PID(), d)
		return -1
	}
}

func TestStartLeadsGroupAndSession(t *testing.T) {
	p, _ := started(t, Options{}, "echo ready; exec sleep 30")
	pgid, err := syscall.Getpgid(p.PID())
	if err != nil || pgid != p.PID() {
		t.Fatalf("pgid %d (%v), want the child's pid %d", pgid, err, p.PID())
	}
	if sid, _ := unix.Getsid(p.PID()); sid != p.PID() {
		t.Fatalf("sid %d, want the child's pid %d", sid, p.PID())
	}
	if p.ExitCode() != -1 {
		t.Fatalf("ExitCode before exit = %d, want -1", p.ExitCode())
	}
}

func TestExitCodes(t *testing.T) {
	p, _ := started(t, Options{}, "echo ready; exit 7")
	if code := waitDone(t, p, 10*time.Second); code != 7 {
		t.Fatalf("exit code %d, want 7", code)
	}
	p, _ = started(t, Options{}, "echo ready; exec sleep 30")
	if err := p.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	if code := waitDone(t, p, 10*time.Second); code != 128+int(syscall.SIGUSR1) {
		t.Fatalf("exit code %d, want 128+SIGUSR1 = %d", code, 128+int(syscall.SIGUSR1))
	}
	if err := p.Stop(); err != nil || p.Stopped() {
		t.Fatalf("Stop after the exit: %v, stopped %v; want a no-op", err, p.Stopped())
	}
}

func TestStartFailureCode(t *testing.T) {
	_, err := Start(exec.Command("/nonexistent/prog"), Options{})
	if code := StartFailureCode(err); err == nil || code != ExitNotFound {
		t.Fatalf("missing program: err %v, code %d, want 127", err, code)
	}
	_, err = Start(exec.Command("heimdall-no-such-program-here"), Options{})
	if code := StartFailureCode(err); err == nil || code != ExitNotFound {
		t.Fatalf("program not in PATH: err %v, code %d, want 127", err, code)
	}
	f, err := os.CreateTemp("", "x")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	defer os.Remove(f.Name())
	os.Chmod(f.Name(), 0o644)
	_, err = Start(exec.Command(f.Name()), Options{})
	if code := StartFailureCode(err); err == nil || code != ExitCannotExecute {
		t.Fatalf("not executable: err %v, code %d, want 126", err, code)
	}
}

// A child that ignores SIGTERM is SIGKILLed after the grace, not before.
func TestStopKillsAfterGrace(t *testing.T) {
	const grace = 300 * time.Millisecond
	p, _ := started(t, Options{Grace: grace}, "trap '' TERM; echo ready; while :; do sleep 0.05; done")
	start := time.Now()
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	code := waitDone(t, p, 10*time.Second)
	if took := time.Since(start); took < grace {
		t.Fatalf("exited after %v, before the grace %v", took, grace)
	}
	if code != 128+int(syscall.SIGKILL) {
		t.Fatalf("exit code %d, want 128+SIGKILL", code)
	}
}

// A grandchild in the group that ignores SIGTERM outlives the child; the
// grace's SIGKILL reaches it through the group.
func TestStopKillsGrandchildAfterChildExit(t *testing.T) {
	p, _ := started(t, Options{Grace: 300 * time.Millisecond}, stubborn+" & wait")
	gpid := grandchildPID(t, p)
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if code := waitDone(t, p, 10*time.Second); code != 128+int(syscall.SIGTERM) {
		t.Fatalf("child exit code %d, want 128+SIGTERM", code)
	}
	if !alive(gpid) {
		t.Fatalf("grandchild %d died with SIGTERM; the test needs one that ignores it", gpid)
	}
	proctest.WaitFor(t, "the grandchild to be SIGKILLed", 10*time.Second, func() bool { return !alive(gpid) })
}

// stubborn is a grandchild for sh -c scripts: it ignores SIGTERM and SIGHUP
// and prints "ready". (The child's stdin is /dev/null, so "read x" returns
// at once: the child exits, leaving it.)
const stubborn = `sh -c 'trap "" TERM HUP; echo ready; while :; do sleep 0.05; done'`

// grandchildPID finds the one process in p's group that is not p.
func grandchildPID(t *testing.T, p *Process) int {
	t.Helper()
	var found int
	proctest.WaitFor(t, "the grandchild", 5*time.Second, func() bool {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == p.PID() {
				continue
			}
			if pg, err := syscall.Getpgid(pid); err == nil && pg == p.PID() && !strings.Contains(stat(pid), "(sleep)") {
				found = pid
				return true
			}
		}
		return false
	})
	return found
}

// killAtEnd SIGKILLs a grandchild the test means to leave alive (it has
// left the child's reach: init reaps it) once the test is over.
func killAtEnd(t *testing.T, pid int) {
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
}

func stat(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return string(b)
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	s := stat(pid)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && !strings.HasPrefix(s[i:], ") Z")
}

// Hangup sends SIGHUP, then SIGTERM, then SIGKILL after the grace, in that
// order, to a program that ignores the first two.
func TestHangupOrder(t *testing.T) {
	const grace = 600 * time.Millisecond
	p, br := started(t, Options{Grace: grace},
		"trap 'echo HUP' HUP; trap 'echo TERM' TERM; echo ready; while :; do sleep 0.02; done")
	start := time.Now()
	if err := p.Hangup(); err != nil {
		t.Fatal(err)
	}
	readUntil(t, br, "HUP")
	readUntil(t, br, "TERM")
	if took := time.Since(start); took < grace/2-50*time.Millisecond {
		t.Fatalf("SIGTERM %v after SIGHUP, want half the grace (%v)", took, grace/2)
	}
	if code := waitDone(t, p, 10*time.Second); code != 128+int(syscall.SIGKILL) {
		t.Fatalf("exit code %d, want 128+SIGKILL", code)
	}
	if took := time.Since(start); took < grace {
		t.Fatalf("SIGKILL %v after SIGHUP, before the grace %v", took, grace)
	}
}

// An interactive shell ends with the SIGHUP alone: no SIGTERM follows.
func TestHangupEndsOnHUP(t *testing.T) {
	p, _ := started(t, Options{Grace: 2 * time.Second}, "echo ready; exec sleep 30")
	p.Hangup()
	if code := waitDone(t, p, 10*time.Second); code != 128+int(syscall.SIGHUP) {
		t.Fatalf("exit code %d, want 128+SIGHUP", code)
	}
}

func TestForceKill(t *testing.T) {
	p, _ := started(t, Options{Grace: time.Hour}, stubborn+" & wait")
	gpid := grandchildPID(t, p)
	// SIGKILL to the group: the grandchild dies with the child.
	if err := p.ForceKill(); err != nil {
		t.Fatal(err)
	}
	if code := waitDone(t, p, 10*time.Second); code != 128+int(syscall.SIGKILL) {
		t.Fatalf("exit code %d, want 128+SIGKILL", code)
	}
	proctest.WaitFor(t, "the grandchild to die", 10*time.Second, func() bool { return !alive(gpid) })
}

// KillRest kills what is left of a stopped group at once (the owner is
// going away), and spares a natural exit's leftovers.
func TestKillRest(t *testing.T) {
	p, _ := started(t, Options{Grace: time.Hour}, stubborn+" & read x")
	gpid := grandchildPID(t, p)
	p.Stop()
	waitDone(t, p, 10*time.Second)
	if !alive(gpid) {
		t.Fatal("grandchild gone before KillRest")
	}
	p.KillRest()
	proctest.WaitFor(t, "the grandchild to be killed", 10*time.Second, func() bool { return !alive(gpid) })

	p, _ = started(t, Options{}, stubborn+" & read x") // exits on its own
	gpid = grandchildPID(t, p)
	killAtEnd(t, gpid)
	waitDone(t, p, 10*time.Second)
	p.KillRest()
	time.Sleep(50 * time.Millisecond)
	if !alive(gpid) {
		t.Fatal("KillRest killed the group of a program that was not stopped")
	}
}

// ChildOnly signals the child alone: the grandchild (which SIGTERM would
// end) survives Stop and the grace.
func TestChildOnly(t *testing.T) {
	p, _ := started(t, Options{ChildOnly: true, Grace: 200 * time.Millisecond},
		"sh -c 'echo ready; while :; do sleep 0.05; done' & wait")
	gpid := grandchildPID(t, p)
	killAtEnd(t, gpid)
	p.Stop()
	waitDone(t, p, 10*time.Second)
	time.Sleep(400 * time.Millisecond) // past the grace
	if !alive(gpid) {
		t.Fatal("the grandchild was signalled with ChildOnly")
	}
}

func TestKillGroup(t *testing.T) {
	p, _ := started(t, Options{}, stubborn+" & read x")
	gpid := grandchildPID(t, p)
	if err := KillGroup(p.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitDone(t, p, 10*time.Second)
	proctest.WaitFor(t, "the grandchild to die", 10*time.Second, func() bool { return !alive(gpid) })

	// Not a group leader: the group id is not a group, the pid alone is
	// signalled.
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := KillGroup(cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ExitCode(cmd.ProcessState, err) != 128+int(syscall.SIGKILL) {
		t.Fatalf("wait: %v, want killed by SIGKILL", err)
	}
	if err := KillGroup(0, syscall.SIGKILL); err == nil {
		t.Fatal("KillGroup(0) did not fail")
	}
}

func TestCtty(t *testing.T) {
	// Without a tty on stdin, Ctty fails in the child: prove the option
	// reaches the kernel (a pty's tty is tested in backend/supervisor).
	cmd := exec.Command("true")
	if _, err := Start(cmd, Options{Ctty: true}); err == nil {
		t.Skip("stdin is a terminal here")
	}
}
